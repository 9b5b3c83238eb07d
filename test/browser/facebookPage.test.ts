// Choosing the Facebook Page to publish as on the Accounts page, in Chromium, against the Meta
// stand-in: a connection made by the connect (publishing as the first Page its user manages)
// says "Publishing as Brand Studio", the person picks the second Page and uses it, and the
// page then says it publishes as that one, the connection the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessibilityViolations,
  freePort,
  screenshot,
  signIn,
  useBrowser,
} from '../support/browser.ts';
import { connectFacebook, FACEBOOK_REDIRECT } from '../support/facebookConnection.ts';
import { META_APP, type MetaStandIn, startMetaOauth } from '../support/platforms/metaOauth.ts';
import { makeAccount } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';

let meta: MetaStandIn;
let port = 0;
beforeAll(async () => {
  port = await freePort();
  meta = await startMetaOauth('facebook', FACEBOOK_REDIRECT);
});
afterAll(async () => {
  await meta?.close();
});
const server = useServer(() => ({
  port,
  env: {
    ...LOOPBACK_OUTBOUND,
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    FACEBOOK_API_URL: meta.url,
    FACEBOOK_CLIENT_ID: META_APP.id,
    FACEBOOK_CLIENT_SECRET: META_APP.secret,
  },
}));
const browser = useBrowser();

describe('the Facebook Page a connection publishes as', () => {
  it('is shown, and the second Page chosen from the Accounts page', async () => {
    const acct = await makeAccount(server.pool, 'free');
    const { id } = await connectFacebook(server, meta, acct);
    const page = await browser.page(server.baseUrl);
    await signIn(page, acct);

    await page.getByRole('link', { name: 'Accounts' }).click();
    const facebook = page.getByRole('listitem', { name: 'Facebook', exact: true });
    await facebook.getByText('Publishing as Brand Studio').waitFor();
    const select = facebook.getByRole('combobox', { name: 'Facebook Page to publish as' });
    await select.waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await select.selectOption({ label: 'Brand Shop' });
    await facebook.getByRole('button', { name: 'Use this Page' }).click();
    await facebook.getByText('Publishing as Brand Shop').waitFor();
    await screenshot(page, 'accounts-facebook-page');

    // Still there after a reload, on the same connection.
    await page.reload();
    await page
      .getByRole('listitem', { name: 'Facebook', exact: true })
      .getByText('Publishing as Brand Shop')
      .waitFor();
    const { rows } = await server.pool.query(
      `select id::text, handle from connected_accounts where brand_id = $1 and platform = 'facebook'`,
      [acct.brandId],
    );
    expect(rows).toEqual([{ id, handle: 'Brand Shop' }]);
  });
});
