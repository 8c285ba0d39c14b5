/** The `keystore/group-*` handlers (docs/GROUPS.md#groups-in-the-keystore): one line each, delegating to ./groups.ts. */
import type { HandlerTable } from '../../protocol/protocol.js';
import type { GroupReplies, GroupRequest } from '../../protocol/group.protocol.js';
import { open } from '../keystore/store.js';
import * as groups from './groups.js';

export const groupHandlers: HandlerTable<GroupRequest, GroupReplies> = {
  'keystore/group-key-packages': async (req) => groups.keyPackages(await open(req), req.identity, req.suite, req.count, req.lastResort),
  'keystore/group-create': async (req) => groups.create(await open(req), req.identity, req.suite, req.policy),
  'keystore/group-join': async (req) => groups.join(await open(req), req.identity, req.welcome, req.policy),
  'keystore/group-add': async (req) => groups.add(await open(req), req.group, req.keyPackages),
  'keystore/group-remove': async (req) => groups.remove(await open(req), req.group, req.members),
  'keystore/group-update': async (req) => groups.update(await open(req), req.group),
  'keystore/group-confirm': async (req) => groups.confirm(await open(req), req.group),
  'keystore/group-encrypt': async (req) => groups.encrypt(await open(req), req.group, req.plaintext, req.aad),
  'keystore/group-receive': async (req) => groups.receive(await open(req), req.group, req.message, req.history),
  'keystore/group-info': async (req) => groups.info(await open(req), req.group),
  'keystore/group-list': async (req) => groups.list(await open(req), req.identity),
  'keystore/group-delete': async (req) => groups.deleteGroup(await open(req), req.group),
};
