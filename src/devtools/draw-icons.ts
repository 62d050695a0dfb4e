// Draws the add-in icons (assets/icon-{16,32,64,80}.png) from simple vector shapes: `npx tsx src/devtools/draw-icons.ts`.
import { writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";

type Point = readonly [number, number];
type Rgb = readonly [number, number, number];

/** A filled shape in the unit square (y grows downwards); `inside` is called once per sample. */
interface Layer {
  color: Rgb;
  inside(x: number, y: number): boolean;
}

const ICON_SIZES = [16, 32, 64, 80] as const;

const GREEN: Rgb = [0x10, 0x7c, 0x41]; // Excel green
const BLUE: Rgb = [0x0f, 0x6c, 0xbd]; // Office blue
const WHITE: Rgb = [0xff, 0xff, 0xff];

// ---------- geometry ----------

function quadratic(from: Point, control: Point, to: Point, steps = 24): Point[] {
  const out: Point[] = [];
  for (let i = 1; i <= steps; i++) {
    const t = i / steps;
    const u = 1 - t;
    out.push([u * u * from[0] + 2 * u * t * control[0] + t * t * to[0], u * u * from[1] + 2 * u * t * control[1] + t * t * to[1]]);
  }
  return out;
}

/** Heraldic shield outline: a shallow gable on top, straight sides, two curves meeting in a point at the bottom. */
function shield(inset: number): Point[] {
  const left = 0.12 + inset;
  const right = 0.88 - inset;
  const top = 0.2 + inset * 0.6;
  const peak = 0.07 + inset;
  const shoulder = 0.52;
  const tip = 0.96 - inset * 1.5;
  const start: Point = [left, top];
  return [
    start,
    ...quadratic(start, [0.3, 0.17 + inset * 0.6], [0.5, peak]),
    ...quadratic([0.5, peak], [0.7, 0.17 + inset * 0.6], [right, top]),
    [right, shoulder],
    ...quadratic([right, shoulder], [right - 0.02, 0.83 - inset], [0.5, tip]),
    ...quadratic([0.5, tip], [left + 0.02, 0.83 - inset], [left, shoulder]),
  ];
}

function insidePolygon(poly: readonly Point[], x: number, y: number): boolean {
  let inside = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i];
    const [xj, yj] = poly[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

function distanceToSegment(x: number, y: number, a: Point, b: Point): number {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const t = Math.max(0, Math.min(1, ((x - a[0]) * dx + (y - a[1]) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(x - (a[0] + t * dx), y - (a[1] + t * dy));
}

function polygonLayer(color: Rgb, poly: readonly Point[]): Layer {
  return { color, inside: (x, y) => insidePolygon(poly, x, y) };
}

/** A round-capped polyline of the given width, ending in an arrowhead along its last segment. */
function arrowLayer(color: Rgb, points: readonly Point[], width: number, head: number): Layer {
  const end = points[points.length - 1];
  const before = points[points.length - 2];
  const len = Math.hypot(end[0] - before[0], end[1] - before[1]);
  const ux = (end[0] - before[0]) / len;
  const uy = (end[1] - before[1]) / len;
  const tip: Point = [end[0] + ux * head * 0.55, end[1] + uy * head * 0.55];
  const base: Point = [end[0] - ux * head * 0.45, end[1] - uy * head * 0.45];
  const triangle: Point[] = [
    tip,
    [base[0] - uy * head * 0.6, base[1] + ux * head * 0.6],
    [base[0] + uy * head * 0.6, base[1] - ux * head * 0.6],
  ];
  const shaft = [...points.slice(0, -1), base];
  return {
    color,
    inside(x, y) {
      if (insidePolygon(triangle, x, y)) return true;
      for (let i = 1; i < shaft.length; i++) if (distanceToSegment(x, y, shaft[i - 1], shaft[i]) <= width / 2) return true;
      return false;
    },
  };
}

function iconLayers(size: number): Layer[] {
  // Strokes get relatively thicker at small sizes so they stay at least ~1.6 px wide.
  const stroke = Math.max(0.085, 1.6 / size);
  const rim = Math.max(0.055, 1.1 / size);
  // Below 24 px the zigzag turns to mush: draw a straight rising arrow instead.
  const trend: Point[] =
    size < 24
      ? [
          [0.3, 0.7],
          [0.64, 0.4],
        ]
      : [
          [0.27, 0.66],
          [0.42, 0.49],
          [0.53, 0.59],
          [0.67, 0.4],
        ];
  return [
    polygonLayer(GREEN, shield(0)),
    polygonLayer(BLUE, shield(rim)),
    arrowLayer(WHITE, trend, size < 24 ? 2 / size : stroke, Math.max(0.24, 4.2 / size)),
  ];
}

// ---------- rasteriser: supersampled coverage, topmost opaque layer wins per sample ----------

function rasterise(size: number, layers: readonly Layer[], samples = 8): Uint8Array {
  const rgba = new Uint8Array(size * size * 4);
  const n = samples * samples;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let covered = 0;
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const x = (px + (sx + 0.5) / samples) / size;
          const y = (py + (sy + 0.5) / samples) / size;
          for (let i = layers.length - 1; i >= 0; i--) {
            if (layers[i].inside(x, y)) {
              r += layers[i].color[0];
              g += layers[i].color[1];
              b += layers[i].color[2];
              covered++;
              break;
            }
          }
        }
      }
      const o = (py * size + px) * 4;
      if (covered > 0) {
        rgba[o] = Math.round(r / covered);
        rgba[o + 1] = Math.round(g / covered);
        rgba[o + 2] = Math.round(b / covered);
        rgba[o + 3] = Math.round((255 * covered) / n);
      }
    }
  }
  return rgba;
}

// ---------- minimal PNG encoder (8-bit RGBA, no interlace) ----------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, "ascii");
  Buffer.from(data).copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

function encodePng(width: number, height: number, rgba: Uint8Array): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type 6 (RGBA), deflate, no filter method, no interlace
  const raw = Buffer.alloc(height * (1 + width * 4));
  for (let y = 0; y < height; y++) {
    raw[y * (1 + width * 4)] = 0; // filter type: none
    Buffer.from(rgba.buffer, rgba.byteOffset + y * width * 4, width * 4).copy(raw, y * (1 + width * 4) + 1);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(raw, { level: 9 })),
    chunk("IEND", new Uint8Array(0)),
  ]);
}

function main(): void {
  const assets = fileURLToPath(new URL("../../assets/", import.meta.url));
  mkdirSync(assets, { recursive: true });
  for (const size of ICON_SIZES) {
    const file = join(assets, `icon-${size}.png`);
    writeFileSync(file, encodePng(size, size, rasterise(size, iconLayers(size))));
    console.log(`wrote ${file}`);
  }
}

main();
