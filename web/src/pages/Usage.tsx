// Usage: the plan, credits, storage against the quota, the request budget of this minute and
// the posts by status, from the same figures as MCP get_usage.
import { Navigate } from '@tanstack/react-router';
import { useBrand } from '../brand.ts';
import { LoadError, PlanNotice } from '../components.tsx';
import { byteSize } from '../format.ts';
import { longDate } from '../time.ts';
import { useUsage } from '../usage.ts';

export function UsagePage() {
  const { session, timeZone } = useBrand();
  const usage = useUsage();
  if (session.isPending || usage.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  if (!usage.data) return <LoadError error={usage.error} what="usage" />;
  const u = usage.data;
  const posts = Object.entries(u.posts_by_status);
  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Usage</h1>
      <PlanNotice
        plan={u.plan}
        what="The REST API, GraphQL and MCP (and their request budget) work"
      />
      <dl className="facts card">
        <dt>Plan</dt>
        <dd>{u.plan}</dd>
        <dt>Credits</dt>
        <dd>{u.credits}</dd>
        <dt>Storage</dt>
        <dd>
          <label htmlFor="usage-storage">
            {byteSize(u.storage.used_bytes)} of {byteSize(u.storage.quota_bytes)}
          </label>{' '}
          <meter
            id="usage-storage"
            min={0}
            max={u.storage.quota_bytes}
            value={u.storage.used_bytes}
          />
          {u.storage.reserved_bytes > 0 && (
            <> (and {byteSize(u.storage.reserved_bytes)} held for unfinished uploads)</>
          )}
        </dd>
        <dt>API requests this minute</dt>
        <dd>
          {u.request_budget.limit
            ? `${u.request_budget.used} of ${u.request_budget.limit} (resets ${longDate(u.request_budget.resets_at, timeZone)})`
            : 'none on this plan'}
        </dd>
        <dt>Posts</dt>
        <dd>
          {posts.length
            ? posts.map(([status, n]) => `${n} ${status}`).join(', ')
            : 'none yet: write one in Compose'}
        </dd>
      </dl>
    </section>
  );
}
