/** WCAG 2 contrast: the text colour for a merchant's colour, so any colour keeps its text readable. */

const HEX = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i;

/** Relative luminance of an sRGB colour `#rgb` or `#rrggbb` (WCAG 2.x definition). */
export function relativeLuminance(color: string): number {
  const match = HEX.exec(color);
  if (!match) throw new RangeError(`not a hex colour: ${color}`);
  const hex = match[1]!.length === 3 ? [...match[1]!].map((digit) => digit + digit).join('') : match[1]!;
  const [r, g, b] = [0, 2, 4].map((offset) => {
    const channel = parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}

/**
 * White or black, whichever contrasts more with `background`. One of them always reaches 4.5:1 (the worst
 * background, at luminance 0.179, still gives 4.58:1), the WCAG AA minimum for normal text.
 */
export function textColorOn(background: string): '#ffffff' | '#000000' {
  return contrastRatio(background, '#ffffff') >= contrastRatio(background, '#000000') ? '#ffffff' : '#000000';
}
