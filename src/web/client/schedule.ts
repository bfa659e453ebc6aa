import { zonedDateTime } from '../../lib/wall-clock.ts';
import { getJson } from './api.ts';
import { byId, element } from './dom.ts';

/** Fills the slot radios of the chosen date from GET /companies/{id}/available_schedules. */
export async function loadSlots(companyId: string, date: string): Promise<void> {
  const container = byId('slot-options')!;
  container.replaceChildren(element('p', { class: 'muted' }, 'Carregando horários…'));
  const answer = await getJson(
    `/api/v1/companies/${encodeURIComponent(companyId)}/available_schedules?date=${encodeURIComponent(date)}`,
  );
  const slots: string[] = Array.isArray(answer.body) ? answer.body : [];
  if (!slots.length) {
    container.replaceChildren(element('p', { role: 'status' }, 'Não há horários livres nesta data. Escolha outra.'));
    return;
  }
  container.replaceChildren(
    ...slots.map((slot) => {
      const wrapper = element('div', { class: 'choice' });
      const id = `slot-${slot.replace(':', '')}`;
      wrapper.append(
        element('input', { type: 'radio', name: 'slot', id, value: slot }),
        element('label', { for: id }, slot),
      );
      return wrapper;
    }),
  );
}

export const selectedSlot = (): string | undefined =>
  document.querySelector<HTMLInputElement>('input[name=slot]:checked')?.value;

/**
 * `2030-03-04` + `14:00` in the company's zone → `2030-03-04T14:00:00-03:00`: the instant the server gives
 * that slot (a repeated wall time is its first occurrence). Undefined for a wall time skipped by a DST
 * jump, which the server never lists: the request then goes without `scheduled_at` and is refused.
 */
export const scheduledAt = (date: string, time: string, timeZone: string): string | undefined =>
  zonedDateTime(date, time, timeZone);
