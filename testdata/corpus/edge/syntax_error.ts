// A file caught mid-edit: several syntax errors on purpose.
import { readFileSync } from "fs";

export interface Point {
  x: number;
  y: number
  z?: number;;
}

export function distance(a: Point, b: Point): number {
  const dx = a.x - b.x;
  const dy = a.y - b.y
  return Math.sqrt(dx * dx + dy * dy;
}

export class Polyline {
  private points: Point[] = [];

  add(p: Point): this {
    this.points.push(p);
    return this;
  }

  length(): number {
    let total = 0;
    for (let i = 1; i < this.points.length; i++) {
      total += distance(this.points[i - 1], this.points[i]);
    }
    return total;
  }

  // The closing brace of this method is missing.
  reverse(): Polyline {
    const out = new Polyline();
    for (const p of [...this.points].reverse()) out.add(p);
    return out;

  static parse(text: string): Polyline {
    const line = new Polyline();
    for (const pair of text.split(";")) {
      const [x, y] = pair.split(",").map(Number);
      line.add({ x, y });
    }
    return line;
  }
}

export const load = (path: string): Polyline =>
  Polyline.parse(readFileSync(path, "utf8").trim());

function broken( {
  return 1 +;
}

export default Polyline;
