/** Text drawn in an uncompressed pdfkit PDF: pdfkit writes it as hex strings inside TJ arrays. */

export function pdfShownText(pdf: Buffer): string[] {
  const source = pdf.toString('latin1');
  return [...source.matchAll(/\[([^\]]*)\]\s*TJ/g)].map((array) =>
    // Numbers between the hex strings are kerning; the standard fonts use WinAnsi, which is Latin-1 for these letters.
    [...array[1]!.matchAll(/<([0-9a-fA-F]*)>/g)].map((hex) => Buffer.from(hex[1]!, 'hex').toString('latin1')).join(''),
  );
}

export function pdfPageCount(pdf: Buffer): number {
  return (pdf.toString('latin1').match(/\/Type \/Page\b/g) ?? []).length;
}
