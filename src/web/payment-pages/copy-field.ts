import { html, type SafeHtml } from './html.ts';

/**
 * The one script of the pages (allowed by its CSP nonce): it reveals each "Copiar código" button and
 * copies its field. Without it the field stays readonly and selectable, so the page works with no JS.
 */
export const COPY_SCRIPT = `
for (const button of document.querySelectorAll('button[data-copy]')) {
  const field = document.getElementById(button.dataset.copy);
  const feedback = document.getElementById(button.dataset.copy + '-feedback');
  button.hidden = false;
  button.addEventListener('click', () => {
    field.select();
    const done = () => { feedback.textContent = 'Código copiado.'; };
    const manual = () => { feedback.textContent = 'Selecione o código e copie manualmente.'; };
    if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, manual); else manual();
  });
}
`;

/** A labelled readonly field with its (script-revealed) copy button and a live region for the outcome. */
export function copyField(id: string, label: string, value: string, rows: number): SafeHtml {
  return html`<label for="${id}">${label}</label>
<textarea id="${id}" rows="${rows}" readonly spellcheck="false">${value}</textarea>
<button type="button" data-copy="${id}" hidden>Copiar código</button>
<p id="${id}-feedback" class="muted" role="status" aria-live="polite"></p>`;
}
