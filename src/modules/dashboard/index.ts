// The dashboard module's public face: other modules and the processes import only what is listed here.
export { registerDashboardApi } from './dashboard.api.ts';
export { demoOwnerSignInLink, runUsersCommand, UsersUsageError } from './users.cli.ts';
export { ensureDashboardUser } from './users.repo.ts';
