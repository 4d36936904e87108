/**
 * The reference partner, as a template to copy: start it with a config and
 * it receives, verifies and applies webhooks, catches up, and books safely.
 * See README.md in this folder for the tour.
 */
export { ReferencePartner, DEFAULT_HORIZON_DAYS } from './partner.ts';
export { CredentialVault, NO_BREAKAGES, BREAKAGE_NAMES, type Breakages, type Credentials, type PartnerConfig, type ReceiverConfig } from './config.ts';
export { MemoryStateStore, FileStateStore, type StateStore } from './state-store.ts';
export { PartnerApi, NetworkError, ApiError, ME_INTERVAL_MS } from './api-client.ts';
export { verifySignature, signatureHeaderFor, SIGNATURE_HEADER, INTEGRATION_HEADER } from './signature.ts';
export { decideCatchUp, type CatchUpStep } from './catch-up.ts';
export { nightValues } from './apply.ts';
export { snapshotWindows, SNAPSHOT_MAX_NIGHTS } from './snapshots.ts';
export type { PartnerState, Reservation, NightType } from './state.ts';
export { NIGHT_TYPES } from './state.ts';
export type { ApiCall, DeliveryRecord, PartnerObserver } from './observer.ts';
export type { BookingRequest } from './bookings.ts';
export { systemClock, realSleep, type Clock } from './clock.ts';
