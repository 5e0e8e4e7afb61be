// SPDX-License-Identifier: GPL-3.0-or-later
// Loads a .cpuprofile into Chrome DevTools' own profile model (CPUProfileDataModel from the
// chrome-devtools-frontend package, bundled by the test with esbuild) and prints what
// DevTools makes of it, as JSON: the total, each function's self weight from the tree
// (hitCount) and from the timeline (samples and timeDeltas), in the file's units.
//
//   node devtools_check.mjs CPU_PROFILE_BUNDLE.mjs PROFILE.cpuprofile

import {readFileSync} from 'node:fs';
import {pathToFileURL} from 'node:url';

const [bundle, profilePath] = process.argv.slice(2);
const {CPUProfileDataModel} = await import(pathToFileURL(bundle).href);
const model = new CPUProfileDataModel.CPUProfileDataModel(JSON.parse(readFileSync(profilePath, 'utf8')));

// DevTools keeps milliseconds; the file's unit is the microsecond (to a nanosecond: a
// profile in colour clocks has fractional microseconds).
const us = ms => Math.round(ms * 1e6) / 1000;
const treeSelf = {};
const visit = node => {
  if (node.self) treeSelf[node.functionName] = (treeSelf[node.functionName] || 0) + us(node.self);
  node.children.forEach(visit);
};
visit(model.profileHead);

const timelineSelf = {};
model.forEachFrame(() => {}, (depth, node, sampleIndex, timestamp, dur, selfTime) => {
  if (selfTime) timelineSelf[node.functionName] = (timelineSelf[node.functionName] || 0) + us(selfTime);
});

console.log(JSON.stringify({
  total: us(model.profileHead.total),
  duration: us(model.profileEndTime - model.profileStartTime),
  treeSelf,
  timelineSelf,
}));
