// Analytics: the selected brand's last 30 days (totals, engagement by day as a chart, the top
// posts) and its best hours of the week as a heatmap, from one request. The chart is drawn by
// uPlot; the numbers are in tables too, for whoever does not see the chart.
import { Navigate } from '@tanstack/react-router';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useBrand } from '../brand.ts';
import { webLink } from '../format.ts';
import { type Analytics as AnalyticsData, useAnalytics } from '../usage.ts';

type Day = AnalyticsData['days'][number];

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

function EngagementChart({ days }: { days: Day[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!box.current || !days.length) return;
    const xs = days.map((d) => Date.parse(`${d.day}T12:00:00Z`) / 1000);
    const plot = new uPlot(
      {
        width: Math.min(900, box.current.clientWidth || 600),
        height: 240,
        // A day either side of the days shown (one day alone would stretch over years).
        scales: { x: { time: true, range: (_u, min, max) => [min - 86_400, max + 86_400] } },
        series: [{}, { label: 'Engagement', stroke: '#1d4ed8', width: 2, points: { show: true } }],
        axes: [{}, { label: 'Engagement' }],
      },
      [xs, days.map((d) => d.engagement)],
      box.current,
    );
    return () => plot.destroy();
  }, [days]);
  return (
    <div ref={box} role="img" aria-label="Engagement by day (the table below has the numbers)" />
  );
}

export function Analytics() {
  const { session, brand } = useBrand();
  const data = useAnalytics(brand?.id);
  if (session.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  if (data.isError)
    return (
      <p className="error" role="alert">
        {(data.error as Error).message}
      </p>
    );
  if (!data.data) return <p role="status">Loading…</p>;
  const { analytics, best_times } = data.data;
  const best = new Map(best_times.slots.map((s, rank) => [`${s.day}-${s.hour}`, { ...s, rank }]));
  const hours = [...new Set(best_times.slots.map((s) => s.hour))].sort((a, b) => a - b);
  return (
    <section aria-labelledby="analytics-title">
      <h1 id="analytics-title">Analytics</h1>
      <p className="meta">
        The last 30 days
        {analytics.collected_at
          ? `, as counted at ${new Date(analytics.collected_at).toISOString().slice(0, 16).replace('T', ' ')} UTC`
          : ': nothing collected yet (counts are read from the platforms every 15 minutes)'}
        .
      </p>
      <dl className="facts">
        <dt>Posts published</dt>
        <dd>{analytics.totals.posts}</dd>
        <dt>Engagement</dt>
        <dd>
          {analytics.totals.engagement} ({analytics.totals.likes} likes, {analytics.totals.reposts}{' '}
          reposts, {analytics.totals.replies} replies)
        </dd>
      </dl>
      {analytics.days.length ? (
        <EngagementChart days={analytics.days} />
      ) : (
        <p className="empty">No post was published in these 30 days.</p>
      )}
      {analytics.days.length > 0 && (
        <table className="list">
          <caption>By day</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Posts</th>
              <th scope="col">Engagement</th>
            </tr>
          </thead>
          <tbody>
            {analytics.days.map((d) => (
              <tr key={d.day}>
                <td>{d.day}</td>
                <td>{d.posts}</td>
                <td>{d.engagement}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {analytics.top_posts.length > 0 && (
        <table className="list">
          <caption>Top posts</caption>
          <thead>
            <tr>
              <th scope="col">Post</th>
              <th scope="col">Platform</th>
              <th scope="col">Engagement</th>
            </tr>
          </thead>
          <tbody>
            {analytics.top_posts.map((t) => (
              <tr key={t.post_id}>
                <td>
                  {webLink(t.permalink_url) ? (
                    <a href={webLink(t.permalink_url)!} rel="noopener noreferrer" target="_blank">
                      {t.post_id}
                    </a>
                  ) : (
                    t.post_id
                  )}
                </td>
                <td>{t.platform}</td>
                <td>{t.engagement}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <table className="list heatmap">
        <caption>
          Best hours to post (
          {best_times.basis === 'own'
            ? "from the brand's own posts"
            : 'defaults: fewer than 20 posts so far'}
          ; {best_times.timezone})
        </caption>
        <thead>
          <tr>
            <th scope="col">Hour</th>
            {WEEKDAYS.map((d) => (
              <th key={d} scope="col">
                {d.slice(0, 3)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {hours.map((h) => (
            <tr key={h}>
              <th scope="row">{String(h).padStart(2, '0')}:00</th>
              {WEEKDAYS.map((d) => {
                const slot = best.get(`${d}-${h}`);
                return (
                  <td key={d} className={slot ? `hot rank-${Math.min(slot.rank, 4)}` : ''}>
                    {slot
                      ? `#${slot.rank + 1}${slot.median_engagement !== null ? ` (${slot.median_engagement})` : ''}`
                      : ''}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
