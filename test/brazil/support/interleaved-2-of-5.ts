/** Reads the digits back out of a bwip-js SVG of an Interleaved 2 of 5 barcode, to check what was drawn. */

// N = narrow, W = wide, for the five elements of one digit.
const PATTERNS = ['NNWWN', 'WNNNW', 'NWNNW', 'WWNNN', 'NNWNW', 'WNWNN', 'NWWNN', 'NNNWW', 'WNNWN', 'NWNWN'];

/** Bars as [start, end] from the SVG's vertical strokes ("M x 75 L x 0" with a stroke width). */
function barsOf(svg: string): Array<[number, number]> {
  const bars: Array<[number, number]> = [];
  for (const path of svg.matchAll(/<path[^>]*stroke-width="([\d.]+)"[^>]*d="([^"]+)"/g)) {
    const width = Number(path[1]);
    for (const move of path[2]!.matchAll(/M([\d.]+) [\d.]+L[\d.]+ [\d.]+/g)) {
      const center = Number(move[1]);
      bars.push([center - width / 2, center + width / 2]);
    }
  }
  bars.sort((a, b) => a[0] - b[0]);
  // Adjacent strokes that touch form one bar.
  return bars.reduce<Array<[number, number]>>((merged, bar) => {
    const last = merged.at(-1);
    if (last && bar[0] <= last[1] + 1e-9) last[1] = Math.max(last[1], bar[1]);
    else merged.push([...bar]);
    return merged;
  }, []);
}

export function decodeInterleaved2of5Svg(svg: string): string {
  const bars = barsOf(svg);
  // Alternating bar and space widths, starting and ending with a bar.
  const widths = bars.flatMap(([start, end], index) =>
    index === 0 ? [end - start] : [start - bars[index - 1]![1], end - start],
  );
  const narrow = Math.min(...widths);
  const elements = widths.map((width) => (width > narrow * 1.5 ? 'W' : 'N')).join('');
  if (!elements.startsWith('NNNN') || !elements.endsWith('WNN')) throw new Error(`no start/stop pattern: ${elements}`);
  const body = elements.slice(4, -3);
  if (body.length % 10 !== 0) throw new Error(`body of ${body.length} elements is not whole digit pairs`);
  let digits = '';
  for (let index = 0; index < body.length; index += 10) {
    const pair = body.slice(index, index + 10);
    const barsPattern = [0, 2, 4, 6, 8].map((i) => pair[i]).join('');
    const spacesPattern = [1, 3, 5, 7, 9].map((i) => pair[i]).join('');
    const first = PATTERNS.indexOf(barsPattern);
    const second = PATTERNS.indexOf(spacesPattern);
    if (first < 0 || second < 0) throw new Error(`unknown pattern at pair ${index / 10}`);
    digits += `${first}${second}`;
  }
  return digits;
}
