// Drawings: the selected brand's drawings, a form to start one, and the drawing page, where a
// pointer or a pen draws onto the drawing model (points with their pressure, 0-1); strokes are
// shown as the export draws them (render/strokeOutline.ts) and saved on top of the version
// read, so a drawing changed elsewhere meanwhile is refused and nothing drawn here is lost.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, Navigate, useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, type PointerEvent, useRef, useState } from 'react';
import { type DrawingStroke, strokePath } from '../../../render/strokeOutline.ts';
import { ApiError, call } from '../api.ts';
import { useBrand } from '../brand.ts';
import { longDate } from '../time.ts';

type Summary = {
  id: string;
  title: string;
  width: number;
  height: number;
  stroke_count: number;
  updated_at: string;
};
type Drawing = Summary & {
  background: string;
  version: number;
  strokes: DrawingStroke[];
  next_stroke_offset: number | null;
};

export function Drawings() {
  const { session, brand, timeZone } = useBrand();
  const navigate = useNavigate();
  const [error, setError] = useState<ApiError>();
  const list = useQuery({
    queryKey: ['drawings', brand?.id],
    queryFn: () =>
      call<{ drawings: Summary[] }>(
        'GET',
        `/app/api/drawings${brand ? `?brand_id=${brand.id}` : ''}`,
      ),
    enabled: !!session.data,
  });
  const create = useMutation({
    mutationFn: (d: { title: string; width: number; height: number }) =>
      call<Drawing>('POST', '/app/api/drawings', {
        ...d,
        background: '#ffffff',
        brand_id: brand?.id,
      }),
    onSuccess: (made) => navigate({ to: '/drawings/$drawingId', params: { drawingId: made.id } }),
    onError: (err) => setError(err instanceof ApiError ? err : undefined),
  });
  if (session.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setError(undefined);
    const f = new FormData(e.currentTarget);
    create.mutate({
      title: String(f.get('title') ?? ''),
      width: Number(f.get('width')),
      height: Number(f.get('height')),
    });
  };
  const field = (name: string) => error?.fields[name];
  return (
    <section aria-labelledby="drawings-title">
      <h1 id="drawings-title">Drawings</h1>
      <form onSubmit={submit} className="card inline" noValidate>
        {(['title', 'width', 'height'] as const).map((name) => (
          <div key={name} className="field">
            <label htmlFor={`drawing-${name}`}>{name[0]!.toUpperCase() + name.slice(1)}</label>
            <input
              id={`drawing-${name}`}
              name={name}
              type={name === 'title' ? 'text' : 'number'}
              defaultValue={name === 'title' ? '' : name === 'width' ? 1080 : 1080}
              aria-invalid={field(name) ? true : undefined}
              aria-describedby={field(name) ? `drawing-${name}-error` : undefined}
            />
            {field(name) && (
              <p className="error" id={`drawing-${name}-error`}>
                {field(name)}
              </p>
            )}
          </div>
        ))}
        <button type="submit" disabled={create.isPending}>
          New drawing
        </button>
        {error && !Object.keys(error.fields).length && (
          <p className="error" role="alert">
            {error.message}
          </p>
        )}
      </form>
      {list.isSuccess && !list.data.drawings.length && (
        <p className="empty">
          No drawings yet: give one a title above and draw with a mouse or a pen.
        </p>
      )}
      <ul className="list-plain" aria-label="Drawings">
        {list.data?.drawings.map((d) => (
          <li key={d.id}>
            <Link to="/drawings/$drawingId" params={{ drawingId: d.id }}>
              {d.title}
            </Link>{' '}
            · {d.width}×{d.height} · {d.stroke_count} stroke(s) · {longDate(d.updated_at, timeZone)}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Every stroke of a drawing: get_drawing answers them a page at a time. */
async function wholeDrawing(id: string): Promise<Drawing> {
  const first = await call<Drawing>('GET', `/app/api/drawings/${id}`);
  const strokes = [...first.strokes];
  let next = first.next_stroke_offset;
  while (next !== null) {
    const page = await call<Drawing>('GET', `/app/api/drawings/${id}?stroke_offset=${next}`);
    strokes.push(...page.strokes);
    next = page.next_stroke_offset;
  }
  return { ...first, strokes };
}

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
  const key = ['drawing', drawingId];
  const drawing = useQuery({
    queryKey: key,
    queryFn: () => wholeDrawing(drawingId),
    enabled: !!session.data,
  });
  const [color, setColor] = useState('#111111');
  const [size, setSize] = useState(8);
  const [unsaved, setUnsaved] = useState<DrawingStroke[]>([]);
  const [current, setCurrent] = useState<DrawingStroke>();
  const [error, setError] = useState<string>();
  const svg = useRef<SVGSVGElement>(null);
  const save = useMutation({
    mutationFn: (d: Drawing) =>
      call('PATCH', '/app/api/drawings', {
        drawing_id: d.id,
        expected_version: d.version,
        add_strokes: unsaved,
      }),
    onSuccess: async () => {
      setUnsaved([]);
      await queries.invalidateQueries({ queryKey: key });
    },
    onError: (err) =>
      setError(
        err instanceof ApiError && err.status === 409
          ? `${err.message} Your unsaved strokes are kept: reload the drawing, then save again.`
          : err instanceof Error
            ? err.message
            : String(err),
      ),
  });
  if (session.isPending || drawing.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  if (!drawing.data)
    return (
      <p className="error" role="alert">
        This drawing was not found. <Link to="/drawings">Back to drawings</Link>
      </p>
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
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
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
