/**
 * Renders a PDF page to a PNG with Debian's poppler-utils (`pdftoppm`): a renderer independent of the one that wrote
 * the PDF, so what it draws is what a printer or a bank's scanner gets. A missing binary fails the run, never skips it.
 */

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const PDFTOPPM = '/usr/bin/pdftoppm';

/** Page `page` of `pdf` at `dpi` (150: an ordinary scan), as a PNG. */
export function renderPdfPage(pdf: Buffer, { page = 1, dpi = 150 } = {}): Buffer {
  if (!existsSync(PDFTOPPM))
    throw new Error(
      `pdftoppm is missing at ${PDFTOPPM}: install Debian's poppler-utils package (apt-get install poppler-utils) to render the boleto PDF`,
    );
  const args = ['-png', '-r', String(dpi), '-f', String(page), '-l', String(page), '-singlefile', '-'];
  return execFileSync(PDFTOPPM, args, { input: pdf, maxBuffer: 64 * 1024 * 1024 });
}
