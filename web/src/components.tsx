// Small pieces several pages share: a group of checkboxes with its legend and error, and the
// notice a page shows when the account's plan is below what the page's feature needs.

export function CheckboxGroup({
  legend,
  options,
  value,
  onChange,
  error,
}: {
  legend: string;
  options: readonly string[];
  value: string[];
  onChange: (next: string[]) => void;
  error?: string;
}) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      <div className="choices">
        {options.map((o) => (
          <label key={o} className="choice">
            <input
              type="checkbox"
              checked={value.includes(o)}
              onChange={(e) =>
                onChange(e.target.checked ? [...value, o] : value.filter((x) => x !== o))
              }
            />
            {o}
          </label>
        ))}
      </div>
      {error && <p className="error">{error}</p>}
    </fieldset>
  );
}

/** What needs the plus plan, said on a free account's page with how the operator raises it. */
export function PlanNotice({ plan, what }: { plan: string; what: string }) {
  if (plan !== 'free') return null;
  return (
    <p className="notice">
      {what} on the plus plan or higher; this account is on {plan}. The operator raises it:{' '}
      <code>npm run admin -- account plan --email … --plan plus</code>.
    </p>
  );
}
