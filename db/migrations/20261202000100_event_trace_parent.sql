-- migrate:up
-- The W3C traceparent of the request that wrote the event (telemetry/tracing.ts), when tracing is on:
-- the relay continues that trace, so one order's request and its deliveries read as one trace.
ALTER TABLE events ADD COLUMN trace_parent text;

-- migrate:down
ALTER TABLE events DROP COLUMN trace_parent;
