/** What other modules use of the inbound receivers: the topic receiver's configuration. */
export { topicOptionsFromEnv } from './sns-signature.ts';
