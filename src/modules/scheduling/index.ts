// The scheduling module's public face: other modules and the processes import only what is listed here.
export { releaseBooking } from './scheduling.repo.ts';
export { registerSchedulingRoutes } from './scheduling.routes.ts';
export { bookSlot, isBookableSlot } from './scheduling.service.ts';
