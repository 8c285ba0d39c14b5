/** The `keystore/*` handlers: one line each, delegating to the module of its concern. */
import type { HandlerTable } from '../../protocol/protocol.js';
import type { KeystoreReplies, KeystoreRequest } from '../../protocol/keystore.protocol.js';
import { bytes } from '../../ts/validate.js';
import { exportBackup, importBackup } from './backup.js';
import { createIdentity, deleteIdentity, exportPhrase, listIdentities, publicBundle, restorePhrase } from './identities.js';
import { decapsulateRequest, deriveSharedKey, openSealed, openSealedExport, sign, signContainerHeader, signHybrid } from './keys.js';
import { checkCurrentPassphrase, lock, setPassphrase, status, unlock } from './lock.js';
import { prekeyBundles } from './prekeys.js';
import { capabilities } from './capabilities.js';
import { addDevice, deviceConsent, lastSigned, revokeDevice } from './devices.js';
import * as link from './link.js';
import { open } from './store.js';
import * as sessions from './sessions.js';
import * as history from './history.js';
import { groupHandlers } from '../group/handlers.js';

/** The `keystore/*` handlers, spread into the worker's handler table; each returns `KeystoreReplies[type]`. */
export const keystoreHandlers: HandlerTable<KeystoreRequest, KeystoreReplies> = {
  'keystore/open': async (req) => status(await open(req)),
  'keystore/capabilities': () => capabilities(),
  'keystore/status': async (req) => status(await open(req)),
  'keystore/set-passphrase': async (req) => setPassphrase(await open(req), req.passphrase, req.params, req.kdfBudget, req.currentPassphrase),
  'keystore/unlock': async (req) => unlock(await open(req), req.passphrase, req.kdfBudget),
  'keystore/lock': async (req) => lock(await open(req)),
  'keystore/create-identity': async (req) => createIdentity(await open(req), req.label, req.mlDsa),
  'keystore/list-identities': async (req) => listIdentities(await open(req)),
  'keystore/public-bundle': async (req) => publicBundle(await open(req), req.identity),
  'keystore/delete-identity': async (req) => deleteIdentity(await checkCurrentPassphrase(await open(req), req.currentPassphrase, req.kdfBudget), req.identity),
  'keystore/export-phrase': async (req) => exportPhrase(await open(req), req.identity),
  'keystore/restore-phrase': async (req) => restorePhrase(await open(req), req.phrase, req.bip39Passphrase, req.label, req.mlDsa),
  'keystore/export-backup': async (req) => exportBackup(await open(req), req.passphrase, req.params, req.kdfBudget, req.includeHistory),
  'keystore/import-backup': async (req) => importBackup(await open(req), bytes('backup', req.backup), req.passphrase, req.kdfBudget, req.includeHistory),
  'keystore/sign': async (req) => sign(await open(req), req.identity, req.algorithm, req.message, req.context),
  'keystore/sign-hybrid': async (req) => signHybrid(await open(req), req.identity, req.message, req.context),
  'keystore/sign-container-header': async (req) => signContainerHeader(await open(req), req.identity, req.header),
  'keystore/registry-add': async (req) => addDevice(
    await open(req), req.user, req.registry === undefined ? undefined : bytes('registry', req.registry), req.device, req.consent, req.deviceName, req.pinned,
  ),
  'keystore/registry-last': async (req) => lastSigned(await open(req), req.user),
  'keystore/device-consent': async (req) => deviceConsent(await open(req), req.device, req.user),
  'keystore/registry-revoke': async (req) => revokeDevice(await open(req), req.user, bytes('registry', req.registry), req.device, req.pinned),
  'keystore/link-start': async (req) => link.start(await open(req), req.device, req.deviceName),
  'keystore/link-accept': async (req) => link.accept(await open(req), req.user, req.code, bytes('offer', req.offer)),
  'keystore/link-answer': async (req) => link.answer(await open(req), req.link, bytes('accept', req.accept)),
  'keystore/link-confirm': async (req) => link.confirm(await open(req), req.link, bytes('hello', req.hello), req.registry === undefined ? undefined : bytes('registry', req.registry)),
  'keystore/link-finish': async (req) => link.finish(await open(req), req.link, bytes('welcome', req.welcome)),
  'keystore/derive-shared-key': async (req) => deriveSharedKey(await open(req), req.identity, req.peerPublicKey, req.info),
  'keystore/decapsulate': (req) => decapsulateRequest(req),
  'keystore/open-sealed': async (req) => openSealed(await open(req), req.identity, req.sealed, req.info, req.aad),
  'keystore/open-sealed-export': async (req) => openSealedExport(await open(req), req.identity, req.enc, req.info, req.exporterContext, req.length),
  'keystore/create-prekey-bundle': async (req) => prekeyBundles(await open(req), req.identity, req.oneTime, false),
  'keystore/replenish-prekeys': async (req) => prekeyBundles(await open(req), req.identity, req.oneTime, req.rotate),
  'keystore/session-initiate': async (req) => sessions.initiate(await open(req), req.identity, req.bundle, req),
  'keystore/session-respond': async (req) => sessions.respond(await open(req), req.identity, req.message, req),
  'keystore/session-encrypt': async (req) => sessions.encrypt(await open(req), req.session, req.plaintext, req.aad),
  'keystore/session-decrypt': async (req) => sessions.decrypt(await open(req), req.session, req.message, req.aad),
  'keystore/session-encrypt-many': async (req) => sessions.encryptMany(await open(req), req.session, req.items),
  'keystore/session-decrypt-many': async (req) => sessions.decryptMany(await open(req), req.session, req.items),
  'keystore/session-info': async (req) => sessions.info(await open(req), req.session),
  'keystore/session-list': async (req) => sessions.list(await open(req), req.identity),
  'keystore/session-delete': async (req) => sessions.remove(await open(req), req.session),
  'keystore/history-append': async (req) => history.append(await open(req), req.conversation, req.entries, req.meta),
  'keystore/history-read': async (req) => history.read(await open(req), req.conversation, req.before, req.limit),
  'keystore/history-delete': async (req) => history.deleteEntry(await open(req), req.conversation, req.seq),
  'keystore/history-delete-conversation': async (req) => history.deleteConversation(await open(req), req.conversation),
  'keystore/history-delete-all': async (req) => history.deleteAll(await open(req)),
  ...groupHandlers,
};
