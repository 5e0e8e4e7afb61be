// SPDX-License-Identifier: GPL-3.0-or-later
// Reads a Bartman binary profile on its own, with the offsets vscode-amiga-debug's parser
// uses (docs/formats/bartman-profile.md), and prints a summary as JSON: counts, and the sum of
// every DMA record field over each frame, so that a test can compare them with what the C++
// writer was given. Usage: node bartman_profile_check.mjs FILE
import { readFileSync } from 'node:fs';

const buf = readFileSync(process.argv[2]);
let at = 0;
const u32 = () => { const v = buf.readUInt32LE(at); at += 4; return v; };
const take = (n) => { if (at + n > buf.length) throw new Error(`truncated at ${at}`); const b = buf.subarray(at, at + n); at += n; return b; };

const out = {};
const numFrames = u32();
const sectionCount = u32();
out.sectionBases = [];
for (let i = 0; i < sectionCount; i++) out.sectionBases.push(u32());
out.systemStackLower = u32();
out.systemStackUpper = u32();
out.stackLower = u32();
out.stackUpper = u32();
out.kickRomSize = take(u32()).length;
out.chipMemSize = take(u32()).length;
out.bogoMemSize = take(u32()).length;
out.baseClock = u32();
out.cpuCycleUnit = u32();
out.numFrames = numFrames;
out.frames = [];

const dmaFields = [
    // name, offset, reader
    ['reg', 0, 'readUInt16LE'], ['dat', 2, 'readUInt32LE'], ['datHi', 6, 'readUInt32LE'],
    ['size', 10, 'readUInt16LE'], ['addr', 12, 'readUInt32LE'], ['evt', 16, 'readUInt32LE'],
    ['evt2', 20, 'readUInt32LE'], ['evtData', 24, 'readUInt32LE'], ['evtDataSet', 28, 'readInt8'],
    ['type', 29, 'readInt16LE'], ['extra', 31, 'readUInt16LE'], ['intlev', 33, 'readInt8'],
    ['ipl', 34, 'readInt8'], ['ipl2', 35, 'readInt8'], ['cfReg', 36, 'readUInt16LE'],
    ['cfDat', 38, 'readUInt16LE'], ['cfAddr', 40, 'readUInt16LE'], ['ciaReg', 42, 'readInt32LE'],
    ['ciaMask', 46, 'readInt32LE'], ['ciaRw', 50, 'readInt8'], ['ciaPhase', 51, 'readInt32LE'],
    ['ciaValue', 55, 'readUInt16LE'], ['end', 57, 'readInt8'],
];

for (let f = 0; f < numFrames; f++) {
    const frame = {};
    const customRegsLen = u32();
    const regs = take(customRegsLen);
    frame.customRegsLen = customRegsLen;
    frame.chipsetFlags = regs.readUInt32BE(0);
    let regSum = 0;
    for (let i = 0; i < 256; i++) regSum += regs.readUInt16BE(4 + 2 * i);
    frame.customRegSum = regSum;
    frame.refPtr = regs.readUInt32BE(4 + 512);

    const agaColorsLen = u32();
    frame.agaColorsLen = agaColorsLen;
    const aga = take(agaColorsLen);
    let agaSum = 0;
    for (let i = 0; i < agaColorsLen / 4; i++) agaSum += aga.readUInt32BE(4 * i);
    frame.agaColorSum = agaSum;

    const dmaLen = u32();
    const dmaCount = u32();
    frame.dmaLen = dmaLen;
    frame.dmaCount = dmaCount;
    const dma = take(dmaLen * dmaCount);
    const sums = Object.fromEntries(dmaFields.map(([name]) => [name, 0]));
    const typeCounts = {};
    let used = 0, eventsOnly = 0;
    for (let i = 0; i < dmaCount; i++) {
        const base = i * dmaLen;
        for (const [name, offset, reader] of dmaFields) sums[name] += dma[reader](base + offset);
        const reg = dma.readUInt16LE(base);
        if (reg !== 0xffff) {
            used++;
            const type = dma.readInt16LE(base + 29);
            typeCounts[type] = (typeCounts[type] || 0) + 1;
        } else if (dma.readUInt32LE(base + 16)) {
            eventsOnly++;
        }
    }
    frame.dmaSums = sums;
    frame.typeCounts = typeCounts;
    frame.usedRecords = used;
    frame.eventOnlyRecords = eventsOnly;

    const resourceLen = u32();
    const resourceCount = u32();
    frame.resourceLen = resourceLen;
    const res = take(resourceLen * resourceCount);
    frame.resources = [];
    for (let i = 0; i < resourceCount; i++) {
        const b = i * resourceLen;
        const nameEnd = res.indexOf(0, b + 8);
        frame.resources.push({
            address: res.readUInt32LE(b), size: res.readUInt32LE(b + 4),
            name: res.toString('utf8', b + 8, Math.min(nameEnd < 0 ? b + 40 : nameEnd, b + 40)),
            type: res.readUInt16LE(b + 40), flags: res.readUInt16LE(b + 42),
            info: [res.readUInt16LE(b + 44), res.readUInt16LE(b + 46), res.readUInt16LE(b + 48),
                   res.readUInt16LE(b + 50)],
        });
    }
    frame.profileCycles = u32();
    frame.idleCycles = u32();
    const profileCount = u32();
    frame.profileArrayLength = profileCount;
    let profileSum = 0;
    const profile = take(4 * profileCount);
    for (let i = 0; i < profileCount; i++) profileSum += profile.readUInt32LE(4 * i);
    frame.profileArraySum = profileSum;
    const screenshotSize = u32();
    frame.screenshotType = u32();
    frame.screenshotSize = take(screenshotSize).length;
    out.frames.push(frame);
}
out.trailingBytes = buf.length - at;
console.log(JSON.stringify(out));
