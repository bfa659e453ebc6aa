import { element } from './dom.ts';

/**
 * Copies a read-only field: the Clipboard API where the page may use it, else the selection and
 * `execCommand('copy')` (older browsers, or a page not served over a secure context). The outcome is
 * said under the button, so a sighted buyer and a screen reader both learn it.
 */
export async function copyField(field: HTMLTextAreaElement | HTMLInputElement, feedback: HTMLElement): Promise<void> {
  field.focus();
  field.select();
  let copied = false;
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(field.value);
      copied = true;
    }
  } catch {
    copied = false;
  }
  if (!copied) {
    try {
      copied = document.execCommand('copy');
    } catch {
      copied = false;
    }
  }
  feedback.textContent = copied
    ? 'Código Pix copiado. Cole no aplicativo do seu banco, na opção Pix copia e cola.'
    : 'Não foi possível copiar. O código está selecionado: copie-o manualmente.';
  feedback.classList.toggle('success', copied);
}

/** The copy-and-paste code in a read-only field, with its "Copiar código Pix" button and confirmation line. */
export function pixCopyField(code: string): HTMLElement {
  const box = element('div', { class: 'copy-field' });
  const label = element('label', { for: 'pix-code' }, 'Código Pix copia e cola');
  const field = element('textarea', { id: 'pix-code', rows: '4', readonly: '', spellcheck: 'false' });
  field.value = code;
  const button = element('button', { type: 'button', id: 'copy-pix' }, 'Copiar código Pix');
  const feedback = element('p', { id: 'pix-code-feedback', class: 'muted', role: 'status', 'aria-live': 'polite' });
  button.addEventListener('click', () => void copyField(field, feedback));
  box.append(label, field, button, feedback);
  return box;
}
