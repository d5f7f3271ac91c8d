/**
 * `GET /r/{token}` and the unsubscribe page `/r/{token}/unsubscribe` (issue 23 item 3, P207): the tracked link of the external apply follow-up. 302 to the job's
 * own `application_url` (never a URL from the request), recording the click; a 410 page when the job no longer
 * takes applications (archived or deleted, or its company deactivated or deleted: P271), recording nothing; else a
 * small 404 page. The token is never logged (the page wrapper logs route and status only).
 */
import { externalApplyUnsubscribe, followExternalApplyLink } from '#delivery/external-apply.js';
import { html, type PageRequest, type PageResult } from '#http/pages.js';

export async function externalApplyRedirect({ event }: PageRequest): Promise<PageResult> {
  const token = event.pathParameters?.token ?? '';
  const followed = await followExternalApplyLink(token);
  if (!followed)
    return {
      statusCode: 404,
      title: 'Link not found',
      body: html`<h1>Link not found</h1>
        <p>This link is not valid or no longer leads anywhere.</p>`,
    };
  // 410 as the apply endpoint answers a closed job (P202): the link is genuine, what it led to takes no applications.
  if (followed === 'closed')
    return {
      statusCode: 410,
      title: 'No longer open',
      body: html`<h1>This job is no longer open</h1>
        <p>
          The job this link leads to no longer takes applications, so there is nothing more to complete. You do not need to do anything.
        </p>`,
    };
  return {
    statusCode: 302,
    title: 'Redirecting',
    headers: { Location: followed.url },
    body: html`<h1>Redirecting</h1>
      <p><a href="${followed.url}">Continue to the application</a></p>`,
  };
}

const NOT_FOUND: PageResult = {
  statusCode: 404,
  title: 'Link not found',
  body: html`<h1>Link not found</h1>
    <p>This link is not valid.</p>`,
};

/**
 * `GET /r/{token}/unsubscribe`: a page with one button, saying what it does; nothing changes on a GET (link
 * scanners follow links). Like the POST, it answers for a closed job or company too (P271): asking for less mail
 * is always allowed, and the page names nothing of the application.
 */
export async function showExternalApplyUnsubscribe({ event }: PageRequest): Promise<PageResult> {
  const token = event.pathParameters?.token ?? '';
  if (!(await externalApplyUnsubscribe(token, false))) return NOT_FOUND;
  return {
    statusCode: 200,
    title: 'Stop reminders',
    body: html`<h1>Stop reminders</h1>
      <p>Nothing has changed yet. Press the button below, and we will send you no more reminders about this application.</p>
      <form method="post"><button type="submit">Stop reminders</button></form>`,
  };
}

/** `POST /r/{token}/unsubscribe`: records the unsubscribe. */
export async function externalApplyUnsubscribePost({ event }: PageRequest): Promise<PageResult> {
  const token = event.pathParameters?.token ?? '';
  if (!(await externalApplyUnsubscribe(token, true))) return NOT_FOUND;
  return {
    statusCode: 200,
    title: 'Reminders stopped',
    body: html`<h1>Reminders stopped</h1>
      <p>You will get no more reminders about this application.</p>`,
  };
}
