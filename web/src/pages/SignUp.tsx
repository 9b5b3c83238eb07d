// Sign-up, as the service's SIGNUP allows (first account only, open, or closed): the API's 422
// is shown beside the field it names, and what was typed stays.
import { Link } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { type ApiError, asApiError, call } from '../api.ts';
import { useEnterDashboard, useSignupAllowed } from '../session.ts';

export function SignUp() {
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const enter = useEnterDashboard('/sign-up');
  const signup = useSignupAllowed();

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(undefined);
    try {
      await call('POST', '/auth/signup', {
        email: form.get('email'),
        password: form.get('password'),
      });
      await enter();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };

  if (signup.data && !signup.data.allowed)
    return (
      <section className="card narrow" aria-labelledby="sign-up-title">
        <h1 id="sign-up-title">Sign-up is closed</h1>
        <p>
          An existing account signs in: <Link to="/sign-in">sign in</Link> with its e-mail and
          password (an account made with <code>npm run admin -- account create</code> included).
        </p>
        <p>
          The operator opens sign-up to everyone by starting the service with{' '}
          <code>SIGNUP=open</code>, or creates accounts with the CLI.
        </p>
      </section>
    );
  const field = (name: string) => error?.fields[name];
  return (
    <section className="card narrow" aria-labelledby="sign-up-title">
      <h1 id="sign-up-title">Create your account</h1>
      <form onSubmit={submit} noValidate>
        <label htmlFor="email">E-mail</label>
        <input
          id="email"
          name="email"
          type="email"
          autoComplete="email"
          required
          aria-invalid={!!field('email')}
          aria-describedby={field('email') ? 'email-error' : undefined}
        />
        {field('email') && (
          <p id="email-error" className="error">
            {field('email')}
          </p>
        )}
        <label htmlFor="password">Password (at least 10 characters)</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          aria-invalid={!!field('password')}
          aria-describedby={field('password') ? 'password-error' : undefined}
        />
        {field('password') && (
          <p id="password-error" className="error">
            {field('password')}
          </p>
        )}
        {error && !Object.keys(error.fields).length && (
          <p className="error" role="alert">
            {error.message}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create account'}
        </button>
      </form>
      <p>
        Have an account? <Link to="/sign-in">Sign in</Link>.
      </p>
    </section>
  );
}
