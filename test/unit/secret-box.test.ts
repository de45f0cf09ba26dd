import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSecretBox, SecretBoxError } from '../../src/lib/secret-box.ts';

describe('secret box (AES-256-GCM at rest)', () => {
  const box = createSecretBox('deployment-secret-deployment-secret-0001', 'test/v1');
  const secret = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTAwMQ==';

  it('opens what it sealed, with a fresh IV each time and no clear text in the output', () => {
    const a = box.seal(secret, 'webhook_endpoint:we_1');
    const b = box.seal(secret, 'webhook_endpoint:we_1');
    assert.notEqual(a, b);
    assert.ok(!a.includes('c2VjcmV0'), 'ciphertext does not contain the secret');
    assert.match(a, /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.equal(box.open(a, 'webhook_endpoint:we_1'), secret);
  });

  it('refuses another context (a ciphertext moved to another row), another key, or any tampering', () => {
    const sealed = box.seal(secret, 'webhook_endpoint:we_1');
    assert.throws(() => box.open(sealed, 'webhook_endpoint:we_2'), SecretBoxError);
    assert.throws(
      () => createSecretBox('another-secret-another-secret-another-1', 'test/v1').open(sealed, 'webhook_endpoint:we_1'),
      SecretBoxError,
    );
    assert.throws(
      () => createSecretBox('deployment-secret-deployment-secret-0001', 'other/v1').open(sealed, 'webhook_endpoint:we_1'),
      SecretBoxError,
    );
    const [v, iv, ct, tag] = sealed.split('.') as [string, string, string, string];
    const flipped = `${ct.startsWith('A') ? 'B' : 'A'}${ct.slice(1)}`;
    assert.throws(() => box.open([v, iv, flipped, tag].join('.'), 'webhook_endpoint:we_1'), SecretBoxError);
    assert.throws(() => box.open('v2.x.y.z', 'webhook_endpoint:we_1'), SecretBoxError);
    assert.throws(() => box.open('garbage', 'webhook_endpoint:we_1'), SecretBoxError);
  });
});
