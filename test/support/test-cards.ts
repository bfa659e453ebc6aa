/** Published test card numbers of the brands buyers pay with here, and how each is printed. */
export const TEST_CARDS: ReadonlyArray<{ brand: string; pan: string; groups: number[] }> = [
  { brand: 'Visa', pan: '4111111111111111', groups: [4, 4, 4, 4] },
  { brand: 'Visa', pan: '4012888888881881', groups: [4, 4, 4, 4] },
  { brand: 'Visa (13 digits)', pan: '4222222222222', groups: [4, 4, 5] },
  { brand: 'Mastercard', pan: '5555555555554444', groups: [4, 4, 4, 4] },
  { brand: 'Mastercard', pan: '5105105105105100', groups: [4, 4, 4, 4] },
  { brand: 'Mastercard (2-series)', pan: '2223003122003222', groups: [4, 4, 4, 4] },
  { brand: 'Amex', pan: '378282246310005', groups: [4, 6, 5] },
  { brand: 'Amex', pan: '371449635398431', groups: [4, 6, 5] },
  { brand: 'Elo', pan: '6362970000457013', groups: [4, 4, 4, 4] },
  { brand: 'Elo', pan: '5066991111111118', groups: [4, 4, 4, 4] },
  { brand: 'Elo', pan: '4389351648020055', groups: [4, 4, 4, 4] },
  { brand: 'Hipercard', pan: '6062825624254001', groups: [4, 4, 4, 4] },
  { brand: 'Hipercard (19 digits)', pan: '6062820000000000002', groups: [4, 4, 4, 4, 3] },
  { brand: 'Hipercard (19 digits)', pan: '3841001111222233338', groups: [4, 4, 4, 4, 3] },
  { brand: 'Diners', pan: '30569309025904', groups: [4, 6, 4] },
  { brand: 'Diners', pan: '38520000023237', groups: [4, 6, 4] },
];

export function grouped(pan: string, groups: readonly number[], separator: string): string {
  const parts: string[] = [];
  let at = 0;
  for (const size of groups) {
    parts.push(pan.slice(at, at + size));
    at += size;
  }
  return parts.join(separator);
}
