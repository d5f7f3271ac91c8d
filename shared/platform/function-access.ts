/** What a function may do: the route table and the background functions declare it, the stack grants it. */
export interface FunctionAccess {
  /**
   * `read`/`write`: table data. `authorize`: the authorizer, which reads a key by its primary key and
   * stamps `last_used_at` on it, and nothing else.
   */
  table?: 'read' | 'write' | 'authorize';
  attachments?: 'read' | 'write' | 'delete';
  /** Send to the sync queue (consuming is granted by the event source that feeds a worker). */
  syncQueue?: 'send';
  events?: 'publish';
  /** Send e-mail through SES (the e-mail fallback). */
  email?: 'send';
  /** Signs and verifies page cursors (list routes). */
  cursorSecret?: boolean;
}
