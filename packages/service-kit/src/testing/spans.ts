/** Spans kept in memory, for tests that read what the services they started recorded (see exportSpansTo). */
export { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
