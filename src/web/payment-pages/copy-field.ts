import { html, type SafeHtml } from './html.ts';

/**
 * The script of the pages (allowed by its CSP nonce): it reveals each copy button and copies its field with
 * the Clipboard API, else with the selection and `execCommand('copy')`, and says the outcome under the button.
 * Without it the field stays readonly and selectable, so the page works with no JS.
 */
export const COPY_SCRIPT = `
for (const button of document.querySelectorAll('button[data-copy]')) {
  const field = document.getElementById(button.dataset.copy);
  const feedback = document.getElementById(button.dataset.copy + '-feedback');
  button.hidden = false;
  const legacy = () => { try { return document.execCommand('copy'); } catch { return false; } };
  const say = (copied) => {
    feedback.textContent = copied ? button.dataset.copied : 'Não foi possível copiar. O código está selecionado: copie-o manualmente.';
    feedback.classList.toggle('success', copied);
  };
  button.addEventListener('click', () => {
    field.focus();
    field.select();
    if (navigator.clipboard && navigator.clipboard.writeText)
      navigator.clipboard.writeText(field.value).then(() => say(true), () => say(legacy()));
    else say(legacy());
  });
}
`;

/** A labelled readonly field with its (script-revealed) copy button and a live region for the outcome. */
export function copyField(
  id: string,
  label: string,
  value: string,
  rows: number,
  button = { text: 'Copiar código', copied: 'Código copiado.' },
): SafeHtml {
  return html`<label for="${id}">${label}</label>
<textarea id="${id}" rows="${rows}" readonly spellcheck="false">${value}</textarea>
<button type="button" data-copy="${id}" data-copied="${button.copied}" hidden>${button.text}</button>
<p id="${id}-feedback" class="muted" role="status" aria-live="polite"></p>`;
}
