/**
 * The name and one-line summary of every operation of the published document, keyed by `METHOD path` as the
 * document spells it. The operationId names a generated client's method, so it is chosen here, once, instead of
 * being derived from the path.
 */
export type OperationNames = { operationId: string; summary: string };

export const OPERATIONS: Record<string, OperationNames> = {
  'GET /products': { operationId: 'listProducts', summary: 'List the account’s products' },
  'POST /products': { operationId: 'createProduct', summary: 'Create a product' },
  'GET /products/{id}': { operationId: 'getProduct', summary: 'Show a product' },
  'GET /products/{id}/gateway_a_public_key': {
    operationId: 'getProductGatewayAPublicKey',
    summary: 'The gateway_a publishable key of a product’s company',
  },
  'GET /checkout_pages': { operationId: 'listCheckoutPages', summary: 'List the account’s checkout pages' },
  'GET /checkout_pages/{id}': { operationId: 'getCheckoutPage', summary: 'Show a checkout page' },
  'GET /checkout_pages/{id}/payments': {
    operationId: 'listCheckoutPagePayments',
    summary: 'Payments made through a checkout page',
  },
  'GET /checkout_pages/{id}/card_hash_key': {
    operationId: 'createCheckoutPageCardHashKey',
    summary: 'A gateway_c card hash key for a checkout page',
  },
  'POST /customers': { operationId: 'upsertCustomer', summary: 'Create or update a customer (optionally a deal)' },
  'GET /orders': { operationId: 'listOrders', summary: 'List orders' },
  'POST /orders': { operationId: 'createOrder', summary: 'Create an order' },
  'GET /orders/{id}': { operationId: 'getOrder', summary: 'Show an order' },
  'POST /carts/{id}': { operationId: 'createCart', summary: 'Create a cart of a cart page' },
  'GET /carts/{id}': { operationId: 'getCart', summary: 'Show a cart' },
  'GET /carts/{id}/payments': { operationId: 'listCartPayments', summary: 'Payments of a cart' },
  'POST /carts/{id}/pay': { operationId: 'payCart', summary: 'Pay a cart' },
  'GET /carts/{id}/card_hash_key': {
    operationId: 'createCartCardHashKey',
    summary: 'A gateway_c card hash key for a cart',
  },
  'GET /charges/{id}': { operationId: 'getCharge', summary: 'Show a charge' },
  'GET /charges/{id}/last_payment': { operationId: 'getChargeLastPayment', summary: 'The last payment of a charge' },
  'POST /charges/{id}/pay': { operationId: 'payCharge', summary: 'Pay a charge' },
  'GET /charges/{id}/card_hash_key': {
    operationId: 'createChargeCardHashKey',
    summary: 'A gateway_c card hash key for a charge',
  },
  'POST /payments': { operationId: 'createPayment', summary: 'Pay on a checkout page' },
  'POST /payments/{id}/refund': { operationId: 'refundPayment', summary: 'Refund a payment, in full or in part' },
  'GET /payment_plans': { operationId: 'listPaymentPlans', summary: 'Installment options for a context' },
  'GET /coupons/{code}/validate': { operationId: 'validateCoupon', summary: 'Check a coupon for products' },
  'GET /companies/{id}/available_schedules': {
    operationId: 'listAvailableSchedules',
    summary: 'Free appointment slots of a company on a date',
  },
  'POST /upsell': { operationId: 'redeemUpsellOffer', summary: 'Accept a one-click upsell offer' },
  'POST /notification_endpoints': {
    operationId: 'createNotificationEndpoint',
    summary: 'Register a notification endpoint',
  },
  'GET /notification_endpoints': { operationId: 'listNotificationEndpoints', summary: 'List notification endpoints' },
  'GET /notification_endpoints/{id}': {
    operationId: 'getNotificationEndpoint',
    summary: 'Show a notification endpoint',
  },
  'PATCH /notification_endpoints/{id}': {
    operationId: 'updateNotificationEndpoint',
    summary: 'Change a notification endpoint',
  },
  'DELETE /notification_endpoints/{id}': {
    operationId: 'disableNotificationEndpoint',
    summary: 'Disable a notification endpoint',
  },
  'POST /notification_endpoints/{id}/rotate_secret': {
    operationId: 'rotateNotificationEndpointSecret',
    summary: 'Rotate an endpoint’s signing secret',
  },
  'GET /notification_endpoints/{id}/deliveries': {
    operationId: 'listNotificationDeliveries',
    summary: 'Deliveries of a notification endpoint',
  },
  'POST /notification_deliveries/{id}/redeliver': {
    operationId: 'redeliverNotification',
    summary: 'Deliver a notification again',
  },
  'GET /webhook_events': { operationId: 'listWebhookEvents', summary: 'List inbound webhook events' },
  'GET /webhook_events/{id}': { operationId: 'getWebhookEvent', summary: 'Show an inbound webhook event' },
  'POST /webhook_events/{id}/replay': {
    operationId: 'replayWebhookEvent',
    summary: 'Apply an inbound webhook event again',
  },
  'POST /dashboard/session': {
    operationId: 'dashboardSignIn',
    summary: 'Sign in with e-mail and password (and the authenticator code once enabled)',
  },
  'GET /dashboard/session': {
    operationId: 'dashboardGetSession',
    summary: 'The signed-in user, account and CSRF token',
  },
  'DELETE /dashboard/session': { operationId: 'dashboardSignOut', summary: 'Sign out' },
  'POST /dashboard/sessions/end_all': {
    operationId: 'dashboardSignOutEverywhere',
    summary: 'Sign out everywhere (every session of this user)',
  },
  'POST /dashboard/links/inspect': { operationId: 'dashboardInspectLink', summary: 'What a one-time link is for' },
  'POST /dashboard/links/redeem': {
    operationId: 'dashboardRedeemLink',
    summary: 'Use a one-time sign-in or invite link (setting the password when given)',
  },
  'POST /dashboard/totp/setup': {
    operationId: 'dashboardStartTotp',
    summary: 'Start the authenticator set-up: a new secret, shown once',
  },
  'POST /dashboard/totp/enable': {
    operationId: 'dashboardEnableTotp',
    summary: 'Confirm the authenticator with a code; sign-in asks for a code from then on',
  },
  'POST /dashboard/totp/disable': {
    operationId: 'dashboardDisableTotp',
    summary: 'Turn the authenticator off (needs the password)',
  },
  'GET /dashboard/summary': {
    operationId: 'dashboardGetSummary',
    summary: 'Sales figures for a range of days in the account’s time zone',
  },
  'GET /dashboard/orders': {
    operationId: 'dashboardListOrders',
    summary: 'The orders, with every filter of GET /orders',
  },
  'GET /dashboard/orders.csv': {
    operationId: 'dashboardExportOrders',
    summary: 'The filtered orders as CSV, streamed',
  },
  'GET /dashboard/orders/{id}': {
    operationId: 'dashboardGetOrder',
    summary: 'An order’s page: the order, its payments, event log and who acted',
  },
  'POST /dashboard/payments/{id}/refund': {
    operationId: 'dashboardRefundPayment',
    summary: 'Refund a payment in full or in part (Idempotency-Key required)',
  },
  'GET /dashboard/api_keys': { operationId: 'dashboardListApiKeys', summary: 'The account’s API keys' },
  'POST /dashboard/api_keys': {
    operationId: 'dashboardCreateApiKey',
    summary: 'Create a key with a label (shown once)',
  },
  'POST /dashboard/api_keys/rotate': {
    operationId: 'dashboardRotateApiKeys',
    summary: 'Issue a new key; the others expire after the grace period (0 revokes them now)',
  },
  'DELETE /dashboard/api_keys/{id}': { operationId: 'dashboardRevokeApiKey', summary: 'Revoke a key now' },
  'GET /dashboard/notification_endpoints': {
    operationId: 'dashboardListNotificationEndpoints',
    summary: 'The account’s notification endpoints',
  },
  'POST /dashboard/notification_endpoints': {
    operationId: 'dashboardCreateNotificationEndpoint',
    summary: 'Add an endpoint; its signing secret is shown once',
  },
  'PATCH /dashboard/notification_endpoints/{id}': {
    operationId: 'dashboardUpdateNotificationEndpoint',
    summary: 'Enable or disable an endpoint',
  },
  'POST /dashboard/notification_endpoints/{id}/rotate_secret': {
    operationId: 'dashboardRotateNotificationSecret',
    summary: 'Rotate an endpoint’s signing secret; the old one signs too during the grace period',
  },
  'GET /dashboard/users': { operationId: 'dashboardListUsers', summary: 'The account’s dashboard users' },
  'POST /dashboard/users': {
    operationId: 'dashboardInviteUser',
    summary: 'Invite a user: the one-time invite link is shown once (and e-mailed when SMTP_URL is set)',
  },
  'PATCH /dashboard/users/{id}': {
    operationId: 'dashboardChangeUserRole',
    summary: 'Change a user’s role (effective on the user’s next request)',
  },
  'DELETE /dashboard/users/{id}': {
    operationId: 'dashboardRemoveUser',
    summary: 'Remove a user and end their sessions',
  },
  'GET /dashboard/audit_log': {
    operationId: 'dashboardListAuditLog',
    summary: 'The account’s audit log, newest first',
  },
  // Dashboard settings, allowed hosts, inbound webhook credentials.
  'GET /dashboard/settings': { operationId: 'dashboardGetSettings', summary: 'The account’s company settings' },
  'PATCH /dashboard/settings/companies/{company_id}': {
    operationId: 'dashboardUpdateCompanySettings',
    summary: 'Change a company’s settings',
  },
  'GET /dashboard/settings/companies/{company_id}/gateways': {
    operationId: 'dashboardListGatewayCredentials',
    summary: 'A company’s gateway credentials (status only)',
  },
  'PATCH /dashboard/settings/companies/{company_id}/gateways/{gateway}': {
    operationId: 'dashboardSetGatewayCredentials',
    summary: 'Set a gateway’s credentials',
  },
  'GET /dashboard/allowed_hosts': { operationId: 'dashboardGetAllowedHosts', summary: 'The account’s allowed hosts' },
  'PUT /dashboard/allowed_hosts': {
    operationId: 'dashboardReplaceAllowedHosts',
    summary: 'Replace the account’s allowed hosts',
  },
  'GET /dashboard/webhook_credentials': {
    operationId: 'dashboardListWebhookCredentials',
    summary: 'Inbound webhook receivers and their credentials’ status',
  },
  'POST /dashboard/webhook_credentials/{company_id}/{receiver}/rotate': {
    operationId: 'dashboardRotateWebhookCredential',
    summary: 'Rotate an inbound webhook credential (the new secret shown once)',
  },
  // Dashboard: customers, subscriptions, order actions, endpoint deliveries.
  'GET /dashboard/customers': {
    operationId: 'dashboardListCustomers',
    summary: 'Customers, newest first, searched by name, e-mail or document',
  },
  'GET /dashboard/customers/{id}': {
    operationId: 'dashboardGetCustomer',
    summary: 'A customer’s page: its orders and subscriptions',
  },
  'GET /dashboard/subscriptions/{id}': {
    operationId: 'dashboardGetSubscription',
    summary: 'A subscription’s page: status, next renewal, renewal orders (paid and failed)',
  },
  'POST /dashboard/subscriptions/{id}/cancel': {
    operationId: 'dashboardCancelSubscription',
    summary: 'Cancel a subscription now: no later period is charged (owners and admins)',
  },
  'POST /dashboard/orders/{id}/cancel': {
    operationId: 'dashboardCancelOrder',
    summary: 'Cancel an unpaid order (pending or waiting for payment); a paid order answers 409',
  },
  'POST /dashboard/orders/{id}/resend_notification': {
    operationId: 'dashboardResendOrderNotification',
    summary: 'Send the order’s latest notification event again to every endpoint it went to',
  },
  'GET /dashboard/notification_endpoints/{id}/deliveries': {
    operationId: 'dashboardListEndpointDeliveries',
    summary: 'An endpoint’s deliveries, newest first: request, last answer, attempts, next attempt',
  },
  'POST /dashboard/notification_deliveries/{id}/redeliver': {
    operationId: 'dashboardRedeliver',
    summary: 'Send a delivery again now, with the same event id and body',
  },
  'POST /webhooks': { operationId: 'receiveGatewayAWebhook', summary: 'Receive a gateway_a event' },
  'POST /webhooks/platform': { operationId: 'receivePlatformWebhook', summary: 'Receive a platform event' },
  'POST /webhooks/invoicing': { operationId: 'receiveInvoicingWebhook', summary: 'Receive an invoicing event' },
  'POST /webhooks/topic': { operationId: 'receiveTopicMessage', summary: 'Receive a topic (SNS) message' },
  'POST /webhooks/{company_id}/gateway_b': {
    operationId: 'receiveGatewayBWebhook',
    summary: 'Receive a gateway_b event for a company',
  },
  'POST /webhooks/{company_id}/bank': {
    operationId: 'receiveBankWebhook',
    summary: 'Receive a bank event for a company',
  },
};

/** Public operations: what the document says instead of an API key requirement (modules/accounts/authentication.ts, `public`). */
export const PUBLIC_ACCESS_RULE =
  '**Access: public, host-restricted.** No API key is needed. The request must come from a host the owning ' +
  'account allows (its `Origin`, else its `Referer`), or from this service’s hosted pages, or carry a valid API ' +
  'key of that account; otherwise it is refused with 403, as is an invalid key.';

/** Open operations: no key and no host rule; webhook receivers authenticate the sender themselves. */
export const OPEN_ACCESS_RULE = '**Access: open.** No API key and no host restriction.';
export const WEBHOOK_ACCESS_RULE =
  '**Access: open to the sender.** No API key; the receiver authenticates the sender by its own credentials ' +
  '(Basic credentials, a signature or a signed topic message: docs/webhooks.md) and refuses it otherwise (401; 403 for a topic message).';
