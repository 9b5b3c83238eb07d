// The connectors' types: the Connector interface every platform implements and what passes
// through it (publications, readings, inbound posts, trends).

export type {
  AccessTokens,
  ConnectedAccountAccess,
  Connector,
  Connectors,
  InboundPost,
  PastPost,
  PostCounts,
  Publication,
  PublicationSteps,
  PublishMedia,
  PublishRequest,
  Trend,
} from './connector.ts';
export { PublicationError, platformsWith } from './connector.ts';
