/** DOM helpers: field errors tied to their inputs, an error summary that takes focus, a polite status line. */

export function byId<T extends HTMLElement = HTMLElement>(id: string): T | null {
  return document.getElementById(id) as T | null;
}

export function valueOf(id: string): string {
  return (byId<HTMLInputElement>(id)?.value ?? '').trim();
}

export type FieldError = { field?: string; message: string };

export function setFieldError(field: string, message: string | undefined): void {
  const input = byId(field);
  const line = byId(`${field}-error`);
  if (input) {
    if (message) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }
  if (line) {
    line.textContent = message ?? '';
    line.hidden = !message;
  }
}

export function clearErrors(): void {
  for (const input of document.querySelectorAll('[aria-invalid=true]')) setFieldError(input.id, undefined);
  const summary = byId('form-errors');
  if (summary) {
    summary.textContent = '';
    summary.hidden = true;
  }
}

/** Clears these fields' errors; the summary goes too once no field is marked wrong. */
export function clearFieldErrors(fields: string[]): void {
  for (const field of fields) setFieldError(field, undefined);
  const summary = byId('form-errors');
  if (summary && !document.querySelector('[aria-invalid=true]')) {
    summary.textContent = '';
    summary.hidden = true;
  }
}

/** Shows every error next to its field and in the summary, then moves focus to the first wrong field. */
export function showErrors(errors: FieldError[]): void {
  clearErrors();
  const summary = byId('form-errors')!;
  const list = document.createElement('ul');
  for (const error of errors) {
    if (error.field) setFieldError(error.field, error.message);
    const item = document.createElement('li');
    item.textContent = error.message;
    list.append(item);
  }
  const heading = document.createElement('p');
  heading.textContent =
    errors.length === 1 ? 'Corrija o seguinte para continuar:' : 'Corrija os seguintes itens para continuar:';
  summary.replaceChildren(heading, list);
  summary.hidden = false;
  // The first wrong field in reading order, whatever order the checks ran in.
  const fields = errors.flatMap((error) => (error.field && byId(error.field) ? [byId(error.field)!] : []));
  fields.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  (fields[0] ?? summary).focus();
}

export function announce(text: string, tone: 'info' | 'success' = 'info'): void {
  const status = byId('live-status')!;
  status.textContent = text;
  status.classList.toggle('success', tone === 'success');
  status.hidden = text === '';
}

export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}
