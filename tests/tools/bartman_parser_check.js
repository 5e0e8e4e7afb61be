#!/usr/bin/env node
// SPDX-License-Identifier: GPL-3.0-or-later
// Reads Bartman frame profiles that Copperline writes with vscode-amiga-debug's own code and
// prints what the extension makes of them. Run it through scripts/check-bartman-parser.sh,
// which compiles the extension's modules; by hand:
//
//   node tests/tools/bartman_parser_check.js --modules DIR [--verbose] FILE...
//
// DIR holds the extension's src/ compiled to CommonJS (backend/profile.js, client/dma.js,
// client/model.js, client/display.js). FILE is either
//   - a binary profile (docs/formats/bartman-profile.md): parsed with the extension's
//     ProfileFile, then turned into frames by Profiler.profileSavestate, the conversion the
//     extension runs on a savestate profile (profileTime needs the program's ELF and binutils
//     and is not run), then loaded like an .amigaprofile; or
//   - an .amigaprofile (docs/formats/amigaprofile.md): an array of frames, or the split form
//     (IAmigaProfileSplit, frames 2.. in FILE_01.amigaprofile, ...), loaded the way the
//     webview's client.tsx does: buildModel() on each frame, which runs GetCopper() and
//     GetBlits() from dma.ts, each frame after the first starting from the memory that
//     GetMemory() replays from the previous frame's DMA writes.
//
// Nothing is stubbed: dma.ts, model.ts and display.ts load in Node as they are. They refer
// to the webview's global PROFILES (dma.ts' cycle conversions, display.ts' scaleValue), so
// the driver sets globalThis.PROFILES / MODELS as the webview page does. model.ts decodes
// memory with the base64-encoding package, which comes from the extension's node_modules.
// savestate.tsx's chipset() is a Preact component file, so its ten lines are repeated here.
//
// Exit status: 0 every check passed, 1 the extension's code threw or a check failed,
// 2 bad arguments or the modules would not load.
'use strict';

const fs = require('fs');
const path = require('path');

const FAIL = 1;
const USAGE = 2;

function usage(msg) {
	if (msg)
		process.stderr.write(`bartman_parser_check: ${msg}\n`);
	process.stderr.write('usage: node bartman_parser_check.js --modules DIR [--verbose] FILE...\n' +
		'  DIR: vscode-amiga-debug src/ compiled to CommonJS (see scripts/check-bartman-parser.sh)\n' +
		'  FILE: a binary profile (*.profile) or an .amigaprofile JSON\n');
	process.exit(USAGE);
}

// ---- arguments and modules -------------------------------------------------------------

let modulesDir;
let verbose = false;
const files = [];
for (let i = 2; i < process.argv.length; i++) {
	const a = process.argv[i];
	if (a === '--modules') {
		if (++i >= process.argv.length)
			usage('--modules needs a directory');
		modulesDir = process.argv[i];
	} else if (a.startsWith('--modules=')) {
		modulesDir = a.slice('--modules='.length);
	} else if (a === '--verbose' || a === '-v') {
		verbose = true;
	} else if (a === '--help' || a === '-h') {
		usage();
	} else if (a.startsWith('-') && a !== '-') {
		usage(`unknown option ${a}`);
	} else {
		files.push(a);
	}
}
if (!modulesDir)
	usage('--modules DIR is required');
if (files.length === 0)
	usage('no FILE given');

function load(rel) {
	const p = path.resolve(modulesDir, rel);
	try {
		return require(p);
	} catch (e) {
		process.stderr.write(`bartman_parser_check: cannot load ${p}: ${e.message}\n`);
		process.exit(USAGE);
	}
}
const profileMod = load('backend/profile.js');
const dma = load('client/dma.js');
const model = load('client/model.js');
const display = load('client/display.js');
for (const [mod, name, what] of [[profileMod, 'ProfileFile', 'backend/profile.js'], [profileMod, 'Profiler', 'backend/profile.js'],
	[dma, 'GetBlits', 'client/dma.js'], [dma, 'GetCopper', 'client/dma.js'], [dma, 'GetScreenFromCopper', 'client/dma.js'],
	[model, 'buildModel', 'client/model.js'], [model, 'GetMemory', 'client/model.js']]) {
	if (typeof mod[name] !== 'function') {
		process.stderr.write(`bartman_parser_check: ${what} has no ${name}(); not the expected vscode-amiga-debug sources?\n`);
		process.exit(USAGE);
	}
}

const { DmaEvents, DmaTypes, DmaSubTypes, ChipsetFlags, NR_DMA_REC_HPOS, NR_DMA_REC_VPOS } = dma;
const DMA_COUNT = NR_DMA_REC_HPOS * NR_DMA_REC_VPOS;
const REGISTER_COUNT = 17; // D0-D7, A0-A7, SR: types.ts Register._count

// ---- helpers ---------------------------------------------------------------------------

const hex = (v, n = 8) => '$' + (v >>> 0).toString(16).toUpperCase().padStart(n, '0');

// The extension's code logs freely (ProfileFile prints the base clock, buildModel times
// itself); keep that out of the report unless --verbose.
function quiet(fn) {
	if (verbose)
		return fn();
	const saved = {};
	const names = ['log', 'info', 'time', 'timeEnd', 'timeLog', 'debug'];
	for (const n of names) {
		saved[n] = console[n];
		console[n] = () => {};
	}
	try {
		return fn();
	} finally {
		for (const n of names)
			console[n] = saved[n];
	}
}

// src/client/savestate.tsx chipset(), verbatim in behaviour.
function chipsetLabel(chipsetFlags) {
	if (chipsetFlags === ChipsetFlags.OCS)
		return 'OCS';
	if (chipsetFlags & ChipsetFlags.AGA)
		return 'AGA';
	const f = [];
	if (chipsetFlags & ChipsetFlags.ECSAgnus)
		f.push('ECS Agnus');
	if (chipsetFlags & ChipsetFlags.ECSDenise)
		f.push('ECS Denise');
	return f.join(', ');
}

function chipsetLine(flags) {
	const label = chipsetLabel(flags);
	// dma.ts GetScreenFromCopper(): DDFSTRT &= chipsetFlags ? 0xfe : 0xfc, AGA fetch modes only
	// with the AGA bit; screen.tsx takes ECS Denise / AGA from the same bits.
	return `chipsetFlags ${hex(flags)}: chipset() "${label}"; DDFSTRT/DDFSTOP mask ${flags ? '$FE' : '$FC'}` +
		`; ECS Agnus ${flags & ChipsetFlags.ECSAgnus ? 'yes' : 'no'}, ECS Denise ${flags & ChipsetFlags.ECSDenise ? 'yes' : 'no'}` +
		`, AGA ${flags & ChipsetFlags.AGA ? 'yes' : 'no'}`;
}

function pcKind(pc, mem) {
	if (pc === 0xffffffff)
		return 'none';
	if (pc === 0x7fffffff)
		return 'irq';
	if (pc >= 0xf80000 && pc < 0x1000000)
		return 'rom';
	if (mem && pc < mem.chipSize)
		return 'ram';
	if (mem && pc >= 0xc00000 && pc < 0xc00000 + mem.bogoSize)
		return 'ram';
	if (!mem && pc < 0x200000)
		return 'ram';
	return 'other';
}

// What the extension's profileSavestateFrame/profileTimeFrame see in a profile array, counted
// independently, plus the malformations they pass over silently.
function walkProfileArray(arr) {
	const r = { samples: 0, withPc: 0, cycles: 0, zeroCycle: 0, maxDepth: 0, shortRegs: 0, danglingPcs: 0, firstPcs: [] };
	let depth = 0;
	for (let i = 0; i < arr.length; i++) {
		const p = arr[i] >>> 0;
		if (p < 0xffff0000) {
			if (depth === 0)
				r.firstPcs.push(p);
			depth++;
		} else {
			const cyc = (0xffffffff - p) | 0;
			r.samples++;
			if (depth > 0)
				r.withPc++;
			else
				r.firstPcs.push(0xffffffff);
			r.maxDepth = Math.max(r.maxDepth, depth);
			r.cycles += cyc;
			if (cyc === 0)
				r.zeroCycle++;
			if (i + REGISTER_COUNT >= arr.length) // registers are arr[i + 1 .. i + 17]
				r.shortRegs++;
			i += REGISTER_COUNT;
			depth = 0;
		}
	}
	r.danglingPcs = depth;
	return r;
}

// ---- binary profile: independent walk of the layout -------------------------------------

// Follows the length fields the way ProfileFile does and returns where the last frame ends,
// so that bytes after it (which ProfileFile ignores, and Copperline's reader refuses) show.
function walkBinary(buf) {
	let off = 0;
	const u32 = () => {
		if (off + 4 > buf.length)
			throw new Error(`file ends inside a length field at offset ${off}`);
		const v = buf.readUInt32LE(off);
		off += 4;
		return v;
	};
	const skip = (n, what) => {
		if (off + n > buf.length)
			throw new Error(`file ends inside ${what} (offset ${off}, ${n} bytes, file ${buf.length})`);
		off += n;
	};
	const numFrames = u32();
	const sectionCount = u32();
	skip(4 * sectionCount, 'sectionBases');
	skip(16, 'stack bounds');
	skip(u32(), 'kickRom');
	skip(u32(), 'chipMem');
	skip(u32(), 'bogoMem');
	skip(8, 'baseClock/cpuCycleUnit');
	const frameStarts = [];
	for (let f = 0; f < numFrames; f++) {
		frameStarts.push(off);
		skip(u32(), `frame ${f} customRegs`);
		skip(u32(), `frame ${f} agaColors`);
		const dmaLen = u32();
		skip(dmaLen * u32(), `frame ${f} DMA records`);
		const resLen = u32();
		skip(resLen * u32(), `frame ${f} resources`);
		skip(8, `frame ${f} profileCycles/idleCycles`);
		skip(4 * u32(), `frame ${f} profileArray`);
		const shotSize = u32();
		skip(4, `frame ${f} screenshotType`);
		skip(shotSize, `frame ${f} screenshot`);
	}
	return { numFrames, sectionCount, end: off, frameStarts };
}

// ---- per-frame report --------------------------------------------------------------------

function countDma(records) {
	const c = { total: records.length, used: 0, types: new Map(), blitIrq: 0, cpuIrq: 0, intreq: 0, ciaa: 0, ciab: 0,
		intlev: 0, cpuCode: 0, cpuData: 0, cpuOther: 0, copperIns: 0, missing: 0 };
	for (let i = 0; i < records.length; i++) {
		const r = records[i];
		if (!r) {
			c.missing++;
			continue;
		}
		const evt = r.evt | 0;
		if (evt & DmaEvents.BLITIRQ) c.blitIrq++;
		if (evt & DmaEvents.CPUIRQ) c.cpuIrq++;
		if (evt & DmaEvents.INTREQ) c.intreq++;
		if (evt & DmaEvents.DMA_EVENT_CIAA_IRQ) c.ciaa++;
		if (evt & DmaEvents.DMA_EVENT_CIAB_IRQ) c.ciab++;
		if (r.reg === undefined)
			continue;
		c.used++;
		if ((r.intlev | 0) > 0) c.intlev++;
		c.types.set(r.type, (c.types.get(r.type) || 0) + 1);
		if (r.type === DmaTypes.CPU) {
			if (r.extra === DmaSubTypes.CPU_CODE) c.cpuCode++;
			else if (r.extra === DmaSubTypes.CPU_DATA) c.cpuData++;
			else c.cpuOther++;
		}
	}
	return c;
}

function typeSummary(types) {
	const parts = [];
	for (const t of [...types.keys()].sort((a, b) => a - b)) {
		const name = dma.dmaTypes.has(t) ? dma.dmaTypes.get(t).name : `type ${t}`;
		parts.push(`${name === '-' ? 'none' : name} ${types.get(t)}`);
	}
	return parts.join(', ') || 'none';
}

class Report {
	constructor(file) {
		this.file = file;
		this.failures = [];
	}
	line(s = '') { process.stdout.write(s + '\n'); }
	fail(s) {
		this.failures.push(s);
		this.line(`  FAIL: ${s}`);
	}
	note(s) { this.line(`  note: ${s}`); }
}

// Reports one frame of what the webview would hold: the ICpuProfileRaw and its model.
function reportFrame(rep, i, frame, mdl, mem, raw) {
	const a = frame.$amiga;
	rep.line(`frame ${i}:`);
	if (!a) {
		rep.fail(`frame ${i} has no $amiga`);
		return;
	}
	rep.line(`  ${chipsetLine(a.chipsetFlags >>> 0)}`);

	// CPU samples as the extension stores them: pcTrace = [pc, cycles, pc, cycles, ...]
	const pcTrace = a.pcTrace || [];
	const kinds = { none: 0, irq: 0, rom: 0, ram: 0, other: 0 };
	let cycles = 0;
	for (let k = 0; k < pcTrace.length; k += 2) {
		kinds[pcKind(pcTrace[k] >>> 0, mem)]++;
		cycles += pcTrace[k + 1] | 0;
	}
	const samples = pcTrace.length >> 1;
	const withPc = samples - kinds.none;
	rep.line(`  samples ${samples} (${cycles} cycles${frame.endTime !== undefined ? `, endTime ${frame.endTime}` : ''}` +
		`${raw ? `, profileCycles ${raw.profileCycles}` : ''}, idleCycles ${a.idleCycles}); with a PC ${withPc}: ` +
		`RAM ${kinds.ram}, ROM ${kinds.rom}, IRQ $7FFFFFFF ${kinds.irq}, elsewhere ${kinds.other}; without (pc $FFFFFFFF) ${kinds.none}`);
	if (pcTrace.length % 2)
		rep.fail(`pcTrace has an odd length ${pcTrace.length}`);
	const regs = a.registerTrace ? a.registerTrace.length : 0;
	if (regs !== 0 && regs !== samples * REGISTER_COUNT)
		rep.fail(`registerTrace has ${regs} values, want ${samples} x ${REGISTER_COUNT} = ${samples * REGISTER_COUNT}`);

	if (raw) {
		// The binary file's profile array, counted here, against the extension's pcTrace.
		const w = raw.walk;
		rep.line(`  profile array: ${raw.profileCount} words, ${w.samples} markers, ${w.withPc} with a PC ` +
			`(deepest stack ${w.maxDepth}), ${w.zeroCycle} of 0 cycles`);
		if (w.samples !== samples)
			rep.fail(`profile array has ${w.samples} samples, the extension's pcTrace ${samples}`);
		if (w.withPc !== withPc)
			rep.fail(`profile array has ${w.withPc} samples with a PC, the extension's pcTrace ${withPc}`);
		let pcDiffs = 0;
		for (let k = 0; k < Math.min(w.firstPcs.length, samples); k++)
			if (w.firstPcs[k] !== (pcTrace[2 * k] >>> 0))
				pcDiffs++;
		if (pcDiffs)
			rep.fail(`${pcDiffs} sample(s) have a different innermost PC in the profile array and in the extension's pcTrace`);
		if (w.cycles !== cycles)
			rep.fail(`profile array holds ${w.cycles} cycles, the extension's pcTrace ${cycles}`);
		if (w.danglingPcs)
			rep.fail(`profile array ends with ${w.danglingPcs} PC(s) and no cycle marker (the extension drops them)`);
		if (w.shortRegs)
			rep.fail('profile array ends inside a sample\'s 17 registers');
	}

	const recs = a.dmaRecords || [];
	const c = countDma(recs);
	rep.line(`  dma: ${c.total} records, ${c.used} used: ${typeSummary(c.types)}`);
	rep.line(`  dma events: BLITIRQ ${c.blitIrq}, CPUIRQ ${c.cpuIrq}, INTREQ ${c.intreq}, CIAA_IRQ ${c.ciaa}, CIAB_IRQ ${c.ciab}; ` +
		`intlev>0 ${c.intlev}; CPU code (extra 0) ${c.cpuCode}, data (extra 1) ${c.cpuData}${c.cpuOther ? `, other ${c.cpuOther}` : ''}`);
	if (c.total !== DMA_COUNT)
		rep.fail(`frame has ${c.total} DMA records, the viewer indexes ${DMA_COUNT} (${NR_DMA_REC_HPOS} x ${NR_DMA_REC_VPOS})`);
	if (c.missing)
		rep.fail(`${c.missing} DMA records are null`);
	const res = a.gfxResources || [];
	rep.line(`  resources ${res.length}${res.length ? ': ' + res.slice(0, 6).map((r) => `${r.name}@${hex(r.address, 6)}`).join(', ') + (res.length > 6 ? ', ...' : '') : ''}` +
		`; customRegs ${a.customRegs ? a.customRegs.length : 0}; agaColors ${a.agaColors ? a.agaColors.length : 0}` +
		`; screenshot ${frame.screenshot ? frame.screenshot.slice(0, frame.screenshot.indexOf(';')).replace('data:', '') + ' ' + frame.screenshot.length + ' chars' : 'none'}`);

	if (mdl) {
		const blits = mdl.blits || [];
		const ended = blits.filter((b) => b.vposEnd !== undefined).length;
		let screen = '';
		try {
			const s = quiet(() => dma.GetScreenFromCopper(mdl.copper, a.chipsetFlags));
			screen = `; GetScreenFromCopper: ${s.width}x${s.height}, ${s.planes.length} plane(s)${s.hires ? ', hires' : ''}${s.ham ? ', HAM' : ''}`;
		} catch (e) {
			rep.fail(`GetScreenFromCopper threw: ${e.message}`);
		}
		rep.line(`  model: GetBlits ${blits.length} blit(s), ${ended} with an end (vposEnd set); GetCopper ${(mdl.copper || []).length} instruction(s)${screen}`);
		if (blits.length && ended < blits.length && c.blitIrq === 0)
			rep.note('no BLITIRQ events, so the extension shows no blit ending');
	}
}

// Loads the frames as client.tsx Profiler() does, builds the models, and reports each frame.
function checkFrames(rep, profiles, rawFrames) {
	globalThis.PROFILES = profiles;
	globalThis.MODELS = [];
	const base = profiles[0] && profiles[0].$base;
	if (!base) {
		rep.fail('frame 0 has no $base (memory, clocks); the viewer needs it');
	} else {
		const hz = base.baseClock === 28375160 ? 50 : 60;
		const cpuFreq = base.baseClock / 4 * 256 / base.cpuCycleUnit;
		rep.line(`$base: baseClock ${base.baseClock} (${hz === 50 ? 'PAL' : 'not PAL: taken as 60 Hz'}), cpuCycleUnit ${base.cpuCycleUnit}` +
			` (CPU ${(cpuFreq / 1e6).toFixed(6)} MHz, ${(cpuFreq / hz).toFixed(1)} cycles/frame)` +
			`, objdump ${(base.objdump || '').split('\n').length} lines, symbols ${(base.symbols || []).length}, sections ${(base.sections || []).length}`);
		if ((base.sections || []).length)
			rep.note('program sections present: PCs in the program are offsets from its text (profileTime); the RAM/ROM split below takes every PC as absolute');
	}
	let prevModel;
	for (let i = 0; i < profiles.length; i++) {
		const frame = profiles[i];
		let mdl;
		try {
			if (i === 0) {
				mdl = quiet(() => model.buildModel(frame));
			} else {
				const memory = quiet(() => model.GetMemory(prevModel.memory, profiles[i - 1].$amiga.dmaRecords));
				mdl = quiet(() => model.buildModel(frame, memory));
			}
			globalThis.MODELS.push(mdl);
			if (i === 0 && mdl.amiga)
				quiet(() => model.createLenses(mdl, display.DisplayUnit.PercentFrame));
		} catch (e) {
			rep.line(`frame ${i}:`);
			rep.fail(`buildModel threw: ${e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : e}`);
			// Figures without the model, GetBlits on its own, to help find the cause.
			try {
				const a = frame.$amiga;
				const blits = quiet(() => dma.GetBlits(new Uint16Array(a.customRegs), a.dmaRecords));
				rep.line(`  GetBlits alone: ${blits.length} blit(s), ${blits.filter((b) => b.vposEnd !== undefined).length} with an end`);
			} catch (e2) {
				rep.line(`  GetBlits alone threw too: ${e2.message}`);
			}
			return;
		}
		const mem = mdl.memory ? { chipSize: mdl.memory.chipMem.length, bogoSize: mdl.memory.bogoMem.length } : undefined;
		reportFrame(rep, i, frame, mdl, mem, rawFrames ? rawFrames[i] : undefined);
		prevModel = mdl;
	}
}

// ---- the two kinds of file ---------------------------------------------------------------

function checkBinary(rep, bytes) {
	// ProfileFile views memory through buffer.buffer at the parsed offsets, so the Buffer must
	// start at offset 0 of its ArrayBuffer (Node pools small reads); copy when it does not.
	let buf = bytes;
	if (buf.byteOffset !== 0 || buf.buffer.byteLength !== buf.length) {
		const ab = new ArrayBuffer(buf.length);
		new Uint8Array(ab).set(buf);
		buf = Buffer.from(ab);
	}

	let layout;
	try {
		layout = walkBinary(buf);
	} catch (e) {
		layout = undefined;
		rep.line(`layout: ${e.message}`);
	}

	let pf;
	try {
		pf = quiet(() => new profileMod.ProfileFile(buf));
	} catch (e) {
		rep.fail(`ProfileFile threw: ${e.message}`);
		return;
	}
	if (!layout) {
		rep.fail('the layout walk failed where ProfileFile did not');
		return;
	}
	const trailing = buf.length - layout.end;
	rep.line(`ProfileFile: ${pf.frames.length} frame(s), ${pf.sectionBases.length} section(s) [${Array.from(pf.sectionBases).map((b) => hex(b, 6)).join(' ')}]` +
		`, kickRom ${pf.kickRomSize / 1024} KiB, chipMem ${pf.chipMemSize / 1024} KiB, bogoMem ${pf.bogoMemSize / 1024} KiB` +
		`, baseClock ${pf.baseClock}, cpuCycleUnit ${pf.cpuCycleUnit}`);
	rep.line(`  stacks: system ${hex(pf.systemStackLower, 6)}-${hex(pf.systemStackUpper, 6)}, program ${hex(pf.stackLower, 6)}-${hex(pf.stackUpper, 6)}` +
		`; last frame ends at byte ${layout.end} of ${buf.length}`);
	if (pf.sectionBases.length)
		rep.note('section bases present: the program\'s PCs are offsets from its base (the extension resolves them with the ELF in profileTime); the RAM/ROM split below takes every PC as absolute');
	if (trailing !== 0)
		rep.fail(`${trailing} byte(s) after the last frame (the extension ignores them; a count or length is off)`);
	if (pf.frames.length === 0) {
		rep.fail('no frames (the extension indexes frame 0)');
		return;
	}

	const rawFrames = pf.frames.map((f) => ({ profileCycles: f.profileCycles, profileCount: f.profileArray.length, walk: walkProfileArray(f.profileArray) }));

	// The conversion the extension runs for a savestate profile (savestate_editor_provider.ts:
	// new Profiler(null, null).profileSavestate(profileFile)), then the JSON round trip the
	// webview's fetch() does.
	let json;
	try {
		json = quiet(() => new profileMod.Profiler(null, null).profileSavestate(pf));
	} catch (e) {
		rep.fail(`profileSavestate threw: ${e.message}`);
		return;
	}
	rep.line(`profileSavestate: ${json.length} characters of JSON`);
	let profiles;
	try {
		profiles = JSON.parse(json);
	} catch (e) {
		rep.fail(`profileSavestate output does not parse: ${e.message}`);
		return;
	}
	json = undefined;
	checkFrames(rep, profiles, rawFrames);
}

function checkAmigaprofile(rep, file, text) {
	let obj;
	try {
		obj = JSON.parse(text);
	} catch (e) {
		rep.fail(`not JSON: ${e.message}`);
		return;
	}
	let profiles;
	if (obj && obj.hunks) {
		rep.fail('a shrinklerstats file, not a frame profile');
		return;
	} else if (obj && obj.$id === 'IAmigaProfileSplit') {
		// client.tsx: frame 0 inline, frame i from PROFILE_URL with '.amigaprofile' replaced by
		// '_NN.amigaprofile', screenshots from the split header.
		rep.line(`form: IAmigaProfileSplit, numFrames ${obj.numFrames}, screenshots ${(obj.screenshots || []).length}`);
		if (!obj.firstFrame) {
			rep.fail('split profile without firstFrame');
			return;
		}
		profiles = [obj.firstFrame];
		profiles[0].screenshot = (obj.screenshots || [])[0];
		const dir = path.dirname(file);
		const name = path.basename(file);
		for (let i = 1; i < obj.numFrames; i++) {
			const sibling = path.join(dir, name.replace('.amigaprofile', `_${i.toString().padStart(2, '0')}.amigaprofile`));
			let frame;
			try {
				frame = JSON.parse(fs.readFileSync(sibling, 'utf8'));
			} catch (e) {
				rep.fail(`frame ${i}: cannot load ${sibling}: ${e.message}`);
				return;
			}
			profiles.push({ screenshot: (obj.screenshots || [])[i], ...frame });
		}
	} else if (Array.isArray(obj)) {
		rep.line(`form: array of ${obj.length} frame(s)`);
		profiles = obj;
	} else {
		rep.fail('neither an array of frames nor an IAmigaProfileSplit');
		return;
	}
	if (profiles.length === 0) {
		rep.fail('no frames (the viewer indexes frame 0)');
		return;
	}
	checkFrames(rep, profiles);
}

function isJson(file, bytes) {
	if (file.endsWith('.amigaprofile') || file.endsWith('.json'))
		return true;
	for (let i = 0; i < Math.min(bytes.length, 64); i++) {
		const ch = bytes[i];
		if (ch === 0x20 || ch === 0x09 || ch === 0x0a || ch === 0x0d)
			continue;
		return ch === 0x5b /* [ */ || ch === 0x7b /* { */;
	}
	return false;
}

// ---- main --------------------------------------------------------------------------------

let failed = 0;
for (const file of files) {
	const rep = new Report(file);
	let bytes;
	try {
		bytes = fs.readFileSync(file);
	} catch (e) {
		rep.line(`== ${file}`);
		rep.fail(`cannot read: ${e.message}`);
		rep.line('result: FAIL (1 check(s) failed)');
		failed++;
		continue;
	}
	const json = isJson(file, bytes);
	rep.line(`== ${file} (${json ? '.amigaprofile JSON' : 'binary profile'}, ${bytes.length} bytes)`);
	try {
		if (json)
			checkAmigaprofile(rep, file, bytes.toString('utf8'));
		else
			checkBinary(rep, bytes);
	} catch (e) {
		rep.fail(`unexpected error: ${e.stack || e}`);
	}
	bytes = undefined;
	if (rep.failures.length) {
		failed++;
		rep.line(`result: FAIL (${rep.failures.length} check(s) failed)`);
	} else {
		rep.line('result: OK');
	}
}
process.exit(failed ? FAIL : 0);
