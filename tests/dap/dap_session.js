// SPDX-License-Identifier: GPL-3.0-or-later
'use strict';
// The Debug Adapter (copperline-ctl --dap, docs/dap.md) as an editor drives it, through
// Microsoft's DebugClient (@vscode/debugadapter-testsupport, which scripts/setup.sh installs
// into build/npm): a headless Copperline launched on tests/guest/debugger/dbg.c built at -O0,
// and a second one on tests/guest/run/crash.c for an exception breakpoint. Every line
// expected is found by its "@name" marker in the source, every value is one the program
// computes (dbg.c's header says which), and every address is checked against the engine.

const assert = require('assert');
const fs = require('fs');
const path = require('path');

const env = (name) => {
    const v = process.env[name];
    if (!v) throw new Error(`${name} is not set (ctest sets it)`);
    return v;
};
const CTL = env('COPPERLINE_CTL');
const PROGRAM = env('GUEST_DEBUGGER_O0');
const SOURCE = env('DEBUGGER_SOURCE');
const CRASH = env('GUEST_CRASH');
const CRASH_SOURCE = env('CRASH_SOURCE');
const NPM = env('NPM_DIR');

let DebugClient;
try {
    ({ DebugClient } = require(path.join(NPM, 'node_modules', '@vscode', 'debugadapter-testsupport')));
} catch (e) {
    // A missing package is a failure, not a skip: this is the test of the adapter.
    console.error(`@vscode/debugadapter-testsupport is not in ${NPM}: run scripts/setup.sh (${e.message})`);
    process.exit(1);
}

// The lines of a source file by their "@name" markers.
function markers(file) {
    const out = {};
    fs.readFileSync(file, 'latin1').split('\n').forEach((text, i) => {
        for (const m of text.matchAll(/@(\w+)/g)) out[m[1]] = i + 1;
    });
    return out;
}
const M = markers(SOURCE);

function within(promise, ms, what) {
    let timer;
    return Promise.race([
        promise.finally(() => clearTimeout(timer)),
        new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
        }),
    ]);
}

// An address as the adapter ("0x002E9A94") or the engine (a number, or "0x2e9a94") gives it.
const number = (v) => (typeof v === 'number' ? v : Number.parseInt(String(v).replace(/^\$/, '0x'), 16));

const t0 = Date.now();
function step(name) {
    console.log(`-- ${((Date.now() - t0) / 1000).toFixed(1)} s: ${name}`);
}

class Session {
    constructor() {
        this.dc = new DebugClient(CTL, '--dap', 'copperline', { env: process.env }, true);
        this.dc.defaultTimeout = 90000;
        this.outputs = [];
        this.breakpointEvents = [];
    }
    async start(launch) {
        await this.dc.start();
        this.dc.on('output', (e) => this.outputs.push(e.body));
        this.dc.on('breakpoint', (e) => this.breakpointEvents.push(e.body.breakpoint));
        const init = await within(this.dc.initializeRequest(), 10000, 'initialize');
        const initialized = this.dc.waitForEvent('initialized', 60000);
        await within(this.dc.launchRequest(launch), 60000, 'launch');
        await initialized;
        return init.body;
    }
    // Runs `action` and waits for the stop it causes.
    async stopAfter(action, what, ms = 90000) {
        const stopped = this.dc.waitForEvent('stopped', ms);
        await within(action(), ms, what);
        const e = await within(stopped, ms, `${what}: the stop`);
        return e.body;
    }
    async frames() {
        const r = await this.dc.stackTraceRequest({ threadId: 1, startFrame: 0, levels: 20 });
        return r.body.stackFrames;
    }
    async scopes(frameId) {
        const r = await this.dc.scopesRequest({ frameId });
        return Object.fromEntries(r.body.scopes.map((s) => [s.name, s]));
    }
    async variables(ref) {
        const r = await this.dc.variablesRequest({ variablesReference: ref });
        return Object.fromEntries(r.body.variables.map((v) => [v.name, v]));
    }
    async evaluate(expression, frameId, context = 'watch') {
        const r = await this.dc.evaluateRequest({ expression, frameId, context });
        return r.body;
    }
    async raw(command) {
        const r = await this.dc.evaluateRequest({ expression: `!${command}`, context: 'repl' });
        return JSON.parse(r.body.result);
    }
}

function expectFrame(frame, fn, line, what) {
    assert.strictEqual(frame.name, fn, `${what}: function`);
    assert.strictEqual(frame.line, line, `${what}: line`);
    assert.ok(frame.source && frame.source.path.endsWith('dbg.c'), `${what}: source ${JSON.stringify(frame.source)}`);
}

async function debuggerSession() {
    const s = new Session();
    const dc = s.dc;
    const caps = await s.start({
        program: PROGRAM,
        headless: true,
        stopOnEntry: true,
        emulatorOptions: ['--factory'],
    });
    for (const c of ['supportsStepBack', 'supportsDataBreakpoints', 'supportsDisassembleRequest',
        'supportsReadMemoryRequest', 'supportsInstructionBreakpoints', 'supportsLogPoints'])
        assert.ok(caps[c], `initialize: ${c}`);
    assert.deepStrictEqual(caps.exceptionBreakpointFilters.slice(0, 5).map((f) => f.filter),
        ['address-error', 'illegal', 'zero-divide', 'privilege', 'trap']);

    step('launch, stop on entry');
    // A breakpoint set before the program is loaded waits for it.
    const fn = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'walk' }] });
    const walkBreak = fn.body.breakpoints[0];
    assert.ok(walkBreak.id, 'the function breakpoint has an id');
    const entry = await s.stopAfter(() => dc.configurationDoneRequest(), 'configurationDone');
    assert.strictEqual(entry.reason, 'entry');
    const loaded = await s.raw('segments.list');
    const base = loaded.run.hunks[0].base;
    const [start] = await s.frames();
    assert.strictEqual(number(start.instructionPointerReference), number(base),
        'the entry stop stands on the first instruction of hunk 0');
    const placed = s.breakpointEvents.find((b) => b.id === walkBreak.id && b.verified);
    assert.ok(placed, `the pending breakpoint is placed when the program loads: ${JSON.stringify(s.breakpointEvents)}`);
    assert.strictEqual(placed.line, M.walk_total);
    const threads = (await dc.threadsRequest()).body.threads;
    assert.deepStrictEqual(threads.map((t) => t.id), [1, 2]);
    assert.strictEqual(threads[0].name, 'CPU');
    assert.match(threads[1].name, /^Copper/);

    step('function breakpoint, stack');
    let stop = await s.stopAfter(() => dc.continueRequest({ threadId: 1 }), 'continue to walk');
    assert.strictEqual(stop.reason, 'function breakpoint');
    assert.deepStrictEqual(stop.hitBreakpointIds, [walkBreak.id]);
    let frames = await s.frames();
    expectFrame(frames[0], 'walk', M.walk_total, 'walk');
    expectFrame(frames[1], 'main', M.main_walk, 'walk\'s caller');

    step('next, stepIn, variables, memory');
    await s.stopAfter(() => dc.nextRequest({ threadId: 1 }), 'next');
    expectFrame((await s.frames())[0], 'walk', M.walk_for, 'next');
    await s.stopAfter(() => dc.nextRequest({ threadId: 1 }), 'next');
    expectFrame((await s.frames())[0], 'walk', M.walk_add, 'next');
    await s.stopAfter(() => dc.stepInRequest({ threadId: 1 }), 'stepIn');
    frames = await s.frames();
    expectFrame(frames[0], 'area', M.area_w, 'stepIn');
    expectFrame(frames[1], 'walk', M.walk_add, 'area\'s caller');
    expectFrame(frames[2], 'main', M.main_walk, 'walk\'s caller');
    const args = await s.variables((await s.scopes(frames[0].id)).Arguments.variablesReference);
    assert.ok(args.it && args.it.variablesReference > 0, `area's parameter it: ${JSON.stringify(args)}`);
    const pointee = (await s.variables(args.it.variablesReference))['*it'];
    const item = await s.variables(pointee.variablesReference);
    assert.strictEqual(item.x.value, '2');
    assert.strictEqual(item.y.value, '10');
    assert.strictEqual(item.name.evaluateName, '(*it).name');
    assert.match((await s.evaluate(item.name.evaluateName, frames[0].id)).result, /"alpha"/);
    // items[0] in memory: short x = 2, short y = 10, big-endian.
    const mem = await dc.send('readMemory', { memoryReference: pointee.memoryReference, count: 4 });
    assert.deepStrictEqual([...Buffer.from(mem.body.data, 'base64')], [0, 2, 0, 10]);
    assert.strictEqual(number(mem.body.address), number(pointee.memoryReference));

    step('line breakpoint');
    const lines = await dc.setBreakpointsRequest({ source: { path: SOURCE }, breakpoints: [{ line: M.area_h }] });
    assert.strictEqual(lines.body.breakpoints[0].verified, true);
    assert.strictEqual(lines.body.breakpoints[0].line, M.area_h);
    const areaBreak = lines.body.breakpoints[0].id;
    stop = await s.stopAfter(() => dc.continueRequest({ threadId: 1 }), 'continue to area_h');
    assert.strictEqual(stop.reason, 'breakpoint');
    assert.deepStrictEqual(stop.hitBreakpointIds, [areaBreak]);
    frames = await s.frames();
    expectFrame(frames[0], 'area', M.area_h, 'breakpoint');
    assert.strictEqual((await s.variables((await s.scopes(frames[0].id)).Locals.variablesReference)).w.value, '2');

    step('next, stepBack, reverseContinue');
    await s.stopAfter(() => dc.nextRequest({ threadId: 1 }), 'next');
    frames = await s.frames();
    expectFrame(frames[0], 'area', M.area_a, 'next');
    assert.strictEqual((await s.variables((await s.scopes(frames[0].id)).Locals.variablesReference)).h.value, '10');
    await s.stopAfter(() => dc.stepBackRequest({ threadId: 1 }), 'stepBack');
    expectFrame((await s.frames())[0], 'area', M.area_h, 'stepBack');
    // Back to the latest hit before here: walk's function breakpoint.
    await s.stopAfter(() => dc.reverseContinueRequest({ threadId: 1 }), 'reverseContinue');
    expectFrame((await s.frames())[0], 'walk', M.walk_total, 'reverseContinue');
    await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
    await s.stopAfter(() => dc.continueRequest({ threadId: 1 }), 'continue');
    frames = await s.frames();
    expectFrame(frames[0], 'area', M.area_h, 'forward again');
    assert.strictEqual((await s.evaluate('it->x', frames[0].id)).result, '2');
    await s.stopAfter(() => dc.continueRequest({ threadId: 1 }), 'continue');
    frames = await s.frames();
    expectFrame(frames[0], 'area', M.area_h, 'the second item');
    assert.strictEqual((await s.evaluate('it->x', frames[0].id)).result, '3');

    step('registers, custom registers, the Copper, setVariable');
    const scopes = await s.scopes(frames[0].id);
    const regs = await s.variables(scopes.Registers.variablesReference);
    assert.strictEqual(number(regs.pc.value), number(frames[0].instructionPointerReference));
    assert.strictEqual(number(regs.a7.value), (await s.raw('regs.get')).a7);
    const custom = await s.variables(scopes['Custom registers'].variablesReference);
    const dmacon = (await s.raw('custom.dump')).registers.DMACONR;
    assert.strictEqual(number(custom.DMACONR.value), dmacon);
    const bits = await s.variables(custom.DMACONR.variablesReference);
    assert.strictEqual(Number(bits.DMAEN.value), (dmacon >> 9) & 1);
    const copper = (await dc.stackTraceRequest({ threadId: 2 })).body.stackFrames;
    assert.strictEqual(copper.length, 1);
    const current = (await s.raw('copper.list {"max": 1}')).copper.current;
    if (current === null) assert.strictEqual(copper[0].instructionPointerReference, undefined);
    else assert.strictEqual(number(copper[0].instructionPointerReference), current);
    const locals = await s.variables(scopes.Locals.variablesReference);
    const set = await dc.setVariableRequest({ variablesReference: scopes.Locals.variablesReference, name: 'w', value: '5' });
    assert.strictEqual(set.body.value, '5');
    assert.strictEqual((await s.evaluate('w', frames[0].id)).result, '5');
    assert.strictEqual((await s.evaluate('w * 2 + 1', frames[0].id)).result, '11');
    await dc.setVariableRequest({ variablesReference: (await s.scopes(frames[0].id)).Locals.variablesReference, name: 'w', value: locals.w.value });
    assert.strictEqual((await s.evaluate('w', frames[0].id)).result, '3');
    const sources = (await dc.send('loadedSources', {})).body.sources.map((x) => x.path);
    assert.ok(sources.includes(SOURCE), `loadedSources: ${sources}`);
    const where = (await dc.send('breakpointLocations', { source: { path: SOURCE }, line: M.area_w, endLine: M.area_ret })).body.breakpoints;
    assert.deepStrictEqual(where.map((b) => b.line), [M.area_w, M.area_h, M.area_a, M.area_ret]);

    step('disassemble');
    const pc = number(frames[0].instructionPointerReference);
    const engine = (await s.raw(`disasm {"addr": ${pc}, "count": 2}`)).instructions;
    const dis = (await dc.disassembleRequest({
        memoryReference: frames[0].instructionPointerReference, instructionOffset: -2, instructionCount: 5,
    })).body.instructions;
    assert.strictEqual(dis.length, 5);
    assert.strictEqual(number(dis[2].address), pc);
    assert.ok(dis[2].instruction.startsWith(engine[0].text), `${dis[2].instruction} is ${engine[0].text}`);
    assert.strictEqual(number(dis[3].address), engine[1].addr);
    assert.strictEqual(number(dis[1].address) + dis[1].instructionBytes.length / 2, pc,
        'the instruction before the pc ends on it');

    step('data breakpoint');
    const info = await dc.dataBreakpointInfoRequest({ name: 'ticks', frameId: frames[0].id });
    assert.ok(info.body.dataId, `dataBreakpointInfo: ${JSON.stringify(info.body)}`);
    const data = await dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: info.body.dataId, accessType: 'write' }] });
    assert.strictEqual(data.body.breakpoints[0].verified, true);
    await dc.setBreakpointsRequest({ source: { path: SOURCE }, breakpoints: [] });
    stop = await s.stopAfter(() => dc.continueRequest({ threadId: 1 }), 'continue to the write');
    assert.strictEqual(stop.reason, 'data breakpoint');
    // After the first item ticks was 1; walk's increment after the second makes it 2.
    assert.strictEqual(stop.description, 'ticks: 1 -> 2');
    frames = await s.frames();
    assert.strictEqual(frames[0].name, 'walk');
    assert.strictEqual((await s.evaluate('ticks', frames[0].id)).result, '2');
    await dc.setDataBreakpointsRequest({ breakpoints: [] });

    step('log point, pause');
    const log = await dc.setBreakpointsRequest({
        source: { path: SOURCE }, breakpoints: [{ line: M.walk_add, logMessage: 'area of {p->x} at tick {ticks}' }],
    });
    assert.strictEqual(log.body.breakpoints[0].verified, true);
    const logged = new Promise((resolve) => {
        const seen = (e) => {
            if (e.body.output.includes('area of')) {
                dc.removeListener('output', seen);
                resolve(e.body);
            }
        };
        dc.on('output', seen);
    });
    await dc.continueRequest({ threadId: 1 });
    const line = await within(logged, 60000, 'the log point\'s output');
    // The third item (x = 4) is the next to reach walk_add, two ticks in.
    assert.strictEqual(line.output, 'area of 4 at tick 2\n');
    assert.ok(line.source && line.source.path === SOURCE, `the log line names its source: ${JSON.stringify(line)}`);
    stop = await s.stopAfter(() => dc.pauseRequest({ threadId: 1 }), 'pause');
    assert.strictEqual(stop.reason, 'pause');

    step('copperline/profile');
    const out = fs.mkdtempSync('/tmp/copperline-dap-test-');
    const captured = s.dc.waitForEvent('stopped', 120000);
    const profile = (await within(dc.customRequest('copperline/profile', { frames: 5, out: `${out}/capture` }), 120000, 'copperline/profile')).body;
    await captured;
    assert.strictEqual(profile.frames_written, 5);
    assert.strictEqual(profile.path, `${out}/capture`);
    const tree = JSON.parse(fs.readFileSync(profile.cpuprofile, 'utf8'));
    assert.ok(Array.isArray(tree.nodes) && tree.nodes.length > 1, 'the .cpuprofile has a call tree');
    fs.rmSync(out, { recursive: true, force: true });

    step('terminate');
    const exited = dc.waitForEvent('exited', 30000);
    const terminated = dc.waitForEvent('terminated', 30000);
    await dc.terminateRequest();
    assert.strictEqual((await exited).body.exitCode, 0);
    await terminated;
    await dc.stop();
}

async function exceptionSession() {
    const s = new Session();
    const dc = s.dc;
    step('exception session: launch');
    await s.start({ program: CRASH, headless: true, emulatorOptions: ['--factory'] });
    const set = await dc.setExceptionBreakpointsRequest({ filters: ['address-error'] });
    const b = set.body.breakpoints[0];
    if (!b.verified) {
        console.log(`SKIPPED the exception breakpoint: this build has no catch kind (${b.message})`);
        await dc.stop();
        return;
    }
    step('exception breakpoint');
    const stop = await s.stopAfter(() => dc.configurationDoneRequest(), 'the address error');
    assert.strictEqual(stop.reason, 'exception');
    assert.strictEqual(stop.description, 'address error');
    const [frame] = await s.frames();
    const crashLine = markersOf(CRASH_SOURCE, 'return *p');
    assert.strictEqual(frame.name, 'main');
    assert.strictEqual(frame.line, crashLine, 'the machine stands before the faulting instruction');
    const info = await dc.exceptionInfoRequest({ threadId: 1 });
    assert.strictEqual(info.body.exceptionId, 'address error');
    assert.match(info.body.description, /address error raised by the instruction at 0x[0-9A-F]+ in main \(crash\.c:\d+\)/);

    step('the emulator goes away');
    const exited = dc.waitForEvent('exited', 30000);
    const terminated = dc.waitForEvent('terminated', 30000);
    await s.evaluate('!quit', undefined, 'repl');
    assert.strictEqual((await exited).body.exitCode, 0);
    await terminated;
    await dc.stop();
}

function markersOf(file, text) {
    const i = fs.readFileSync(file, 'latin1').split('\n').findIndex((l) => l.includes(text));
    if (i < 0) throw new Error(`no "${text}" in ${file}`);
    return i + 1;
}

(async () => {
    // Two machines boot side by side: most of the time is AROS booting to the programs.
    await Promise.all([debuggerSession(), exceptionSession()]);
    console.log(`dap_session: passed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    process.exit(0);
})().catch((e) => {
    console.error(`dap_session: FAILED: ${e.stack || e}`);
    process.exit(1);
});
