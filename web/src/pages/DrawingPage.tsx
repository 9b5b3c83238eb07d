// A drawing: a pointer or a pen draws onto the drawing model (points with their pressure,
// 0-1); strokes are shown as the export draws them (render/strokeOutline.ts, the one module
// of render/ the page imports) and saved on top of the version read, so a drawing changed
// elsewhere meanwhile is refused and nothing drawn here is lost.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, Navigate, useNavigate, useParams } from '@tanstack/react-router';
import { type PointerEvent, useRef, useState } from 'react';
import { type DrawingStroke, strokePath } from '../../../render/strokeOutline.ts';
import { ApiError, call } from '../api.ts';
import { useBrand } from '../brand.ts';
import { LoadError, SaveError } from '../components.tsx';
import { DRAWING_KEYS, type Drawing, useDrawing } from '../drawings.ts';

const pen = (color: string, size: number): Omit<DrawingStroke, 'points'> => ({
  color,
  size,
  opacity: 1,
  thinning: 0.5,
  smoothing: 0.5,
  streamline: 0.5,
  taper_start: 0,
  taper_end: 0,
  tool: 'pen',
});

export function DrawingPage() {
  const { drawingId } = useParams({ from: '/drawings/$drawingId' });
  const { session } = useBrand();
  const queries = useQueryClient();
  const navigate = useNavigate();
  const key = DRAWING_KEYS.one(drawingId);
  const drawing = useDrawing(drawingId);
  const [color, setColor] = useState('#111111');
  const [size, setSize] = useState(8);
  const [unsaved, setUnsaved] = useState<DrawingStroke[]>([]);
  const [current, setCurrent] = useState<DrawingStroke>();
  const [error, setError] = useState<string>();
  // Changed elsewhere meanwhile: the strokes drawn here stay while the latest version loads.
  const [stale, setStale] = useState(false);
  const svg = useRef<SVGSVGElement>(null);
  const save = useMutation({
    mutationFn: (d: Drawing) =>
      call('PATCH', `/app/api/drawings/${d.id}`, {
        expected_version: d.version,
        add_strokes: unsaved,
      }),
    onSuccess: async () => {
      setUnsaved([]);
      await queries.invalidateQueries({ queryKey: key });
    },
    onError: (err) => {
      setStale(err instanceof ApiError && err.status === 409);
      setError(err instanceof Error ? err.message : String(err));
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => call('DELETE', `/app/api/drawings/${id}`),
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: DRAWING_KEYS.all });
      await navigate({ to: '/drawings' });
    },
    // In use by a design: the API names it.
    onError: (err) => setError(err instanceof Error ? err.message : String(err)),
  });
  if (session.isPending || drawing.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  if (!drawing.data)
    return (
      <>
        <LoadError error={drawing.error} what="drawing" />
        <Link to="/drawings">Back to drawings</Link>
      </>
    );
  const d = drawing.data;
  // A pointer's place in drawing pixels; a mouse reports pressure 0.5 while pressed.
  const point = (e: PointerEvent<SVGSVGElement>): [number, number, number] => {
    const box = svg.current!.getBoundingClientRect();
    const x = ((e.clientX - box.left) / box.width) * d.width;
    const y = ((e.clientY - box.top) / box.height) * d.height;
    // Pressure arrives as a float32 (0.30000001…): three decimals say all a pen can.
    const pressure = Math.round((e.pressure || 0.5) * 1000) / 1000;
    return [Math.round(x * 10) / 10, Math.round(y * 10) / 10, pressure];
  };
  const down = (e: PointerEvent<SVGSVGElement>) => {
    // Keeps the stroke when the pen leaves the surface; a pointer the browser does not know
    // (a synthetic one) cannot be captured, and draws all the same.
    try {
      e.currentTarget.setPointerCapture(e.pointerId);
    } catch {}
    setCurrent({ ...pen(color, size), points: [point(e)] });
  };
  const move = (e: PointerEvent<SVGSVGElement>) => {
    if (current && current.points.length < 5_000)
      setCurrent({ ...current, points: [...current.points, point(e)] });
  };
  const up = () => {
    if (current) setUnsaved([...unsaved, current]);
    setCurrent(undefined);
  };
  const shown = [...d.strokes, ...unsaved, ...(current ? [current] : [])];
  return (
    <section aria-labelledby="drawing-title">
      <h1 id="drawing-title">{d.title}</h1>
      <div className="toolbar">
        <label htmlFor="pen-color">Colour</label>
        <input
          id="pen-color"
          type="color"
          value={color}
          onChange={(e) => setColor(e.target.value)}
        />
        <label htmlFor="pen-size">Size</label>
        <input
          id="pen-size"
          type="range"
          min={1}
          max={64}
          value={size}
          onChange={(e) => setSize(Number(e.target.value))}
        />
        <button
          type="button"
          disabled={!unsaved.length}
          onClick={() => setUnsaved(unsaved.slice(0, -1))}
        >
          Undo
        </button>
        <button
          type="button"
          disabled={!unsaved.length || save.isPending}
          onClick={() => {
            setError(undefined);
            save.mutate(d);
          }}
        >
          Save {unsaved.length ? `(${unsaved.length} new)` : ''}
        </button>
        <button
          type="button"
          className="quiet"
          disabled={remove.isPending}
          onClick={() => {
            if (window.confirm(`Delete the drawing ${d.title}?`)) remove.mutate(d.id);
          }}
        >
          Delete
        </button>
      </div>
      <SaveError
        error={error}
        stale={stale}
        kept="Your new strokes are kept:"
        reload={async () => {
          await drawing.refetch();
          setStale(false);
          setError(undefined);
        }}
      />
      <svg
        ref={svg}
        className="drawing"
        role="img"
        aria-label={`${d.title}: ${shown.length} stroke(s). Draw here with a mouse or a pen.`}
        viewBox={`0 0 ${d.width} ${d.height}`}
        onPointerDown={down}
        onPointerMove={move}
        onPointerUp={up}
        onPointerCancel={up}
      >
        <rect
          width={d.width}
          height={d.height}
          fill={d.background === 'transparent' ? '#fff' : d.background}
        />
        {shown.map((s, i) => (
          <path
            // Strokes only grow at the end while the page is open: the index is stable.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above
            key={i}
            d={strokePath(s)}
            fill={
              s.tool === 'eraser'
                ? d.background === 'transparent'
                  ? '#fff'
                  : d.background
                : s.color
            }
            opacity={s.tool === 'highlighter' ? s.opacity * 0.5 : s.opacity}
          />
        ))}
      </svg>
      <p className="meta">
        Version {d.version} · {d.strokes.length} saved stroke(s) · {d.width}×{d.height}
      </p>
    </section>
  );
}
