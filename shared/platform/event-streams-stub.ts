/**
 * What the bundles get instead of `@smithy/core/event-streams` (a substitution in lib/bundle-substitutions.ts,
 * P269): the SDK's event-stream codec and serde, about 15 kB in every bundle, since every client's protocol
 * imports it for operations with an event stream (S3 SelectObjectContent and the like). No operation the
 * service calls has one. The S3 client still resolves a marshaller when it is built, so these keep the
 * library's names and that step; using one throws. Code run from source keeps the library's own module.
 */
const unsupported = (): never => {
  throw new Error('SDK event streams are not bundled: no operation the service calls has one');
};

/** The marshaller a client resolves when it is built; any use of it throws. */
export const eventStreamSerdeProvider = () => ({ serialize: unsupported, deserialize: unsupported });

/** As the library's: the client's config gets a marshaller from its provider. */
export const resolveEventStreamSerdeConfig = <T extends { eventStreamSerdeProvider: (input: T) => unknown }>(input: T) =>
  Object.assign(input, { eventStreamMarshaller: input.eventStreamSerdeProvider(input) });

/** Built only by a protocol serializing or reading an event stream. */
export class EventStreamSerde {
  constructor() {
    unsupported();
  }
}
