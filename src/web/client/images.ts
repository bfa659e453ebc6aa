import { element } from './dom.ts';

/**
 * A product picture that fails to load is replaced by the same placeholder the server renders for a product
 * without one; a broken logo is hidden. The check also catches an image that failed before the script ran.
 */
export function replaceBrokenImages(): void {
  for (const image of document.querySelectorAll<HTMLImageElement>('ul.products img, header.brand img')) {
    const replace = () => {
      if (image.closest('header')) {
        image.hidden = true;
        return;
      }
      const name = image.closest('li')?.querySelector('strong')?.textContent?.trim() ?? '';
      image.replaceWith(
        element('span', { class: 'image-placeholder', 'aria-hidden': 'true' }, [...name][0]?.toUpperCase() ?? ''),
      );
    };
    if (image.complete && image.naturalWidth === 0) replace();
    else image.addEventListener('error', replace, { once: true });
  }
}
