/** How long a payment whose charge call timed out stays pending while the gateway shows no charge for it. */
export const RECONCILE_WINDOW_MS = 30 * 60_000;
/** Within the window, the gateway is asked again this often. */
export const RECONCILE_RETRY_MS = 5 * 60_000;
