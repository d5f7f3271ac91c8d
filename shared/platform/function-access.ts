/** What a function may do: the route table and the background functions declare it, the stack grants it. */
export interface FunctionAccess {
  /**
   * `read`/`write`: table data. `authorize`: the authorizer, which reads a key by its primary key and
   * stamps `last_used_at` on it, and nothing else. `outbox`: the event relay, which deletes outbox items by
   * primary key and parks an unpublished item-borne event as one (P240), and touches nothing else (its stream
   * is granted by the event source). `list`: `read`, and put the stored ids of a walk by `next` (P260).
   */
  table?: 'read' | 'write' | 'authorize' | 'outbox' | 'list';
  attachments?: 'read' | 'write' | 'delete';
  /** Send to the sync queue (consuming is granted by the event source that feeds a worker). */
  syncQueue?: 'send';
  /** Publish to the events topic: the event relay only (P115); every other function writes its events to items or the outbox. */
  events?: 'publish';
  /** Send e-mail through SES (the e-mail fallback). */
  email?: 'send';
  /** Send to the job import queue (the scheduled fan-out). */
  jobImportQueue?: 'send';
  /** Send to the webhook queue (the webhook worker fans an event out into one delivery per endpoint). */
  webhookQueue?: 'send';
  /** Calls the ATSs: gets their base URLs (PERSONIO_API_URL, …) from the stack's context values. */
  ats?: boolean;
  /** ATS credentials at rest (D18): open them (workers) or seal them too (connect). */
  credentials?: 'decrypt' | 'encrypt';
  /** Signs and verifies page cursors (list routes). */
  cursorSecret?: boolean;
}
