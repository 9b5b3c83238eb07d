// Sign-in: e-mail and password (POST /auth/login sets the session cookie). A failure says why
// beside the form and keeps what was typed.
import { Link } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { asApiError, call } from '../api.ts';
import { useEnterDashboard, useSignupAllowed } from '../session.ts';

export function SignIn() {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const enter = useEnterDashboard('/sign-in');
  const signup = useSignupAllowed();

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(undefined);
    try {
      await call('POST', '/auth/login', {
        email: form.get('email'),
        password: form.get('password'),
      });
      await enter();
    } catch (err) {
      setError(asApiError(err).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card narrow" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in</h1>
      <form onSubmit={submit} noValidate>
        <label htmlFor="email">E-mail</label>
        <input id="email" name="email" type="email" autoComplete="email" required />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
        />
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {signup.data?.allowed && (
        <p>
          No account yet? <Link to="/sign-up">Create one</Link>.
        </p>
      )}
    </section>
  );
}
