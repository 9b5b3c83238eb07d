// What a new account's password must be, checked alike wherever one is set: the dashboard's
// sign-up and the operator CLI's account create.
import { z } from 'zod';

export const MIN_PASSWORD_LENGTH = 10;

export const NewPassword = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `use at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(1024, 'use at most 1,024 characters');
