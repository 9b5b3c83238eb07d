// A freehand stroke's outline, made by perfect-freehand from its points and options: the one
// geometry the PNG and SVG exports draw (render/drawing.ts) and the dashboard's drawing page
// shows while you draw. Imports nothing but perfect-freehand, so the browser bundle can use it.
import { getStroke } from 'perfect-freehand';

/** [x, y] or [x, y, pressure from 0 to 1], in the drawing's pixels. */
export type DrawingPoint = [number, number, (number | undefined)?];

export type DrawingStroke = {
  sid?: string | undefined;
  points: DrawingPoint[];
  color: string;
  /** The stroke's diameter in pixels at full pressure. */
  size: number;
  opacity: number;
  thinning: number;
  smoothing: number;
  streamline: number;
  /** Tapers at the start and end, in pixels (0: none). */
  taper_start: number;
  taper_end: number;
  tool: 'pen' | 'highlighter' | 'eraser';
};

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * A stroke's outline, rounded to 0.01 px, as flat [x0, y0, x1, y1, ...] in drawing pixels:
 * the one geometry the SVG writes as path data and the PNG traces (empty when it has none).
 */
export function outlineOf(stroke: DrawingStroke): number[] {
  const pressured = stroke.points.some((p) => p[2] !== undefined);
  // A missing pressure is 0.5 (perfect-freehand's own default differs for the first point);
  // points that all carry theirs go in as they are, without a copy.
  const complete = pressured && stroke.points.every((p) => p[2] !== undefined);
  const outline = getStroke(
    complete ? (stroke.points as number[][]) : stroke.points.map((p) => [p[0], p[1], p[2] ?? 0.5]),
    {
      size: stroke.size,
      thinning: stroke.thinning,
      smoothing: stroke.smoothing,
      streamline: stroke.streamline,
      simulatePressure: !pressured,
      start: { taper: stroke.taper_start },
      end: { taper: stroke.taper_end },
      last: true,
    },
  );
  if (outline.length < 2) return [];
  const xy = new Array<number>(outline.length * 2);
  for (let i = 0; i < outline.length; i++) {
    xy[2 * i] = round(outline[i]![0]!);
    xy[2 * i + 1] = round(outline[i]![1]!);
  }
  return xy;
}

/** A stroke's outline as SVG path data (empty when it has none), in drawing pixels. */
export function strokePath(stroke: DrawingStroke): string {
  const xy = outlineOf(stroke);
  if (!xy.length) return '';
  let path = `M${xy[0]} ${xy[1]}`;
  for (let i = 2; i < xy.length; i += 2) path += `L${xy[i]} ${xy[i + 1]}`;
  return `${path}Z`;
}
