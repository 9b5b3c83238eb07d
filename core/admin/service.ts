// The admin concept's front door: the operator CLI's commands (bin/ is their only caller).
export { COMMANDS, checkNewPassword, resolveCommand, UsageError } from './commands.ts';
