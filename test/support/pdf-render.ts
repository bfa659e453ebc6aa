/**
 * Renders a PDF page to a PNG (and reads its text) with Debian's poppler-utils (`pdftoppm`, `pdftotext`): a renderer independent of the one that wrote
 * the PDF, so what it draws is what a printer or a bank's scanner gets. A missing binary fails the run, never skips it.
 */

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

function poppler(tool: 'pdftoppm' | 'pdftotext', args: string[], pdf: Buffer): Buffer {
  const path = `/usr/bin/${tool}`;
  if (!existsSync(path))
    throw new Error(
      `${tool} is missing at ${path}: install Debian's poppler-utils package (apt-get install poppler-utils) to read the boleto PDF`,
    );
  return execFileSync(path, args, { input: pdf, maxBuffer: 64 * 1024 * 1024 });
}

/** Page `page` of `pdf` at `dpi` (150: an ordinary scan), as a PNG. */
export function renderPdfPage(pdf: Buffer, { page = 1, dpi = 150 } = {}): Buffer {
  return poppler(
    'pdftoppm',
    ['-png', '-r', String(dpi), '-f', String(page), '-l', String(page), '-singlefile', '-'],
    pdf,
  );
}

/** The text poppler extracts from `pdf`, in reading order. */
export function pdfText(pdf: Buffer): string {
  return poppler('pdftotext', ['-layout', '-', '-'], pdf).toString('utf8');
}
