// SPDX-License-Identifier: GPL-3.0-or-later
'use strict';
// The Debug Adapter (copperline-ctl --dap) against a client that sends what no client should:
// a body that is not JSON, a Content-Length shorter than its body, a header without one, a
// Content-Length of gigabytes (refused unread: the adapter's memory stays small), a message
// that is not a request, an unknown command, bad launch arguments. Each earns an error
// response (where the message had a seq) or an output event and a line on stderr, and the
// adapter goes on answering. Then the same over --dap-listen's TCP port, and, attached to a
// live Copperline, every request with arguments of every wrong shape: each is answered once.

const assert = require('assert');
const cp = require('child_process');
const fs = require('fs');
const net = require('net');

const os = require('os');
const path = require('path');

const CTL = process.env.COPPERLINE_CTL;
const EXE = process.env.COPPERLINE_EXE;
if (!CTL || !EXE) throw new Error('COPPERLINE_CTL and COPPERLINE_EXE are not set (ctest sets them)');

// Reads DAP messages from a stream, and waits for the ones a test wants.
class Reader {
    constructor(stream) {
        this.buffer = Buffer.alloc(0);
        this.messages = [];
        this.waiters = [];
        stream.on('data', (d) => this.data(d));
    }
    data(d) {
        this.buffer = Buffer.concat([this.buffer, d]);
        for (;;) {
            const end = this.buffer.indexOf('\r\n\r\n');
            if (end < 0) return;
            const m = /Content-Length: (\d+)/.exec(this.buffer.slice(0, end).toString());
            assert.ok(m, `the adapter wrote a header without Content-Length: ${this.buffer.slice(0, end)}`);
            const length = Number(m[1]);
            if (this.buffer.length < end + 4 + length) return;
            const msg = JSON.parse(this.buffer.slice(end + 4, end + 4 + length).toString());
            this.buffer = this.buffer.slice(end + 4 + length);
            this.messages.push(msg);
            this.waiters = this.waiters.filter((w) => !w(msg));
        }
    }
    // The first message (from now or already read since `from`) that `match` accepts.
    wait(match, what, from = this.messages.length, ms = 10000) {
        const seen = this.messages.slice(from).find(match);
        if (seen) return Promise.resolve(seen);
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms; got ${JSON.stringify(this.messages.slice(from))}`)), ms);
            this.waiters.push((msg) => {
                if (!match(msg)) return false;
                clearTimeout(timer);
                resolve(msg);
                return true;
            });
        });
    }
}

const framed = (obj) => {
    const body = typeof obj === 'string' ? obj : JSON.stringify(obj);
    return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
};
const response = (seq) => (m) => m.type === 'response' && m.request_seq === seq;
const outputWith = (text) => (m) => m.type === 'event' && m.event === 'output' && m.body.output.includes(text);

function rssKiB(pid) {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)[1]);
}

async function stdio() {
    const adapter = cp.spawn(CTL, ['--dap'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    adapter.stderr.on('data', (d) => { stderr += d; });
    const exit = new Promise((resolve) => adapter.on('exit', (code, signal) => resolve({ code, signal })));
    const r = new Reader(adapter.stdout);
    const send = (bytes) => adapter.stdin.write(bytes);

    console.log('-- a body that is not JSON');
    let from = r.messages.length;
    send('Content-Length: 10\r\n\r\n{not json}');
    await r.wait(outputWith('not JSON'), 'not JSON', from);

    console.log('-- an unknown command');
    send(framed({ seq: 1, type: 'request', command: 'frobnicate' }));
    let m = await r.wait(response(1), 'unknown command');
    assert.strictEqual(m.success, false);
    assert.match(m.message, /unknown request "frobnicate"/);

    console.log('-- a Content-Length shorter than its body, then a good request');
    const good = JSON.stringify({ seq: 2, type: 'request', command: 'initialize', arguments: { adapterID: 'copperline' } });
    from = r.messages.length;
    send(`Content-Length: 20\r\n\r\n${good}`);
    await r.wait(outputWith('not JSON'), 'the cut body', from);
    send(framed({ seq: 3, type: 'request', command: 'initialize', arguments: { adapterID: 'copperline' } }));
    m = await r.wait(response(3), 'initialize after the cut body');
    assert.strictEqual(m.success, true);
    assert.strictEqual(m.body.supportsStepBack, true);

    console.log('-- a header without Content-Length');
    from = r.messages.length;
    send('Content-Type: application/json\r\n\r\n');
    await r.wait(outputWith('without Content-Length'), 'no Content-Length', from);

    console.log('-- a Content-Length of 40 GB');
    const before = rssKiB(adapter.pid);
    from = r.messages.length;
    send('Content-Length: 40000000000\r\n\r\n');
    await r.wait(outputWith('refused unread'), 'the huge Content-Length', from);
    // What follows the refused header is passed over up to the next header.
    send(Buffer.alloc(4 << 20, 'x'));
    send(framed({ seq: 4, type: 'request', command: 'threads' }));
    m = await r.wait(response(4), 'a request after the huge one');
    assert.strictEqual(m.success, false);
    assert.match(m.message, /no emulator/);
    const after = rssKiB(adapter.pid);
    assert.ok(after - before < 64 * 1024, `the adapter grew by ${after - before} KiB`);

    console.log('-- messages that are not requests');
    send(framed({ seq: 5, type: 'event', event: 'stopped' }));
    m = await r.wait(response(5), 'an event from the client');
    assert.strictEqual(m.success, false);
    send(framed({ seq: 6, type: 'request', command: 'launch', arguments: 'not an object' }));
    m = await r.wait(response(6), 'arguments that are not an object');
    assert.strictEqual(m.success, false);
    from = r.messages.length;
    send(framed([1, 2, 3]));
    await r.wait(outputWith('JSON object'), 'an array', from);

    console.log('-- bad launch arguments');
    send(framed({ seq: 7, type: 'request', command: 'launch', arguments: { headless: true } }));
    m = await r.wait(response(7), 'launch without a program');
    assert.strictEqual(m.success, false);
    assert.match(m.message, /program/);
    send(framed({ seq: 8, type: 'request', command: 'launch', arguments: { program: '/nonexistent/prog', stopOnEntry: 'yes' } }));
    m = await r.wait(response(8), 'launch with bad types');
    assert.strictEqual(m.success, false);
    send(framed({ seq: 9, type: 'request', command: 'attach', arguments: { socket: 'no-such-copperline-dap-test' } }));
    m = await r.wait(response(9), 'attach to nothing', r.messages.length, 15000);
    assert.strictEqual(m.success, false);
    assert.match(m.message, /cannot connect/);

    console.log('-- still answering, and ends with its input');
    send(framed({ seq: 10, type: 'request', command: 'initialize', arguments: {} }));
    m = await r.wait(response(10), 'initialize at the end');
    assert.strictEqual(m.success, true);
    adapter.stdin.end();
    let timer;
    const ended = await Promise.race([exit, new Promise((res) => { timer = setTimeout(() => res(null), 10000); })]);
    clearTimeout(timer);
    assert.ok(ended, 'the adapter ends when its input ends');
    assert.strictEqual(ended.code, 0, `exit ${JSON.stringify(ended)}`);
    assert.match(stderr, /not JSON/, 'the errors are on stderr too');
    assert.match(stderr, /refused unread/);
}

async function tcp() {
    console.log('-- --dap-listen 0');
    const adapter = cp.spawn(CTL, ['--dap-listen', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    try {
        const port = await new Promise((resolve, reject) => {
            let text = '';
            const timer = setTimeout(() => reject(new Error(`no port printed: ${text}`)), 10000);
            adapter.stderr.on('data', (d) => {
                text += d;
                const m = /127\.0\.0\.1:(\d+)/.exec(text);
                if (m) {
                    clearTimeout(timer);
                    resolve(Number(m[1]));
                }
            });
        });
        for (let round = 0; round < 2; ++round) { // one session after another
            const socket = net.createConnection(port, '127.0.0.1');
            await new Promise((resolve) => socket.on('connect', resolve));
            const r = new Reader(socket);
            socket.write('Content-Length: 3\r\n\r\n{x}');
            socket.write(framed({ seq: 1, type: 'request', command: 'initialize', arguments: {} }));
            const m = await r.wait(response(1), 'initialize over TCP');
            assert.strictEqual(m.success, true);
            await r.wait(outputWith('not JSON'), 'an error over TCP', 0);
            socket.write(framed({ seq: 2, type: 'request', command: 'disconnect', arguments: {} }));
            await r.wait(response(2), 'disconnect over TCP');
            socket.end();
        }
    } finally {
        adapter.kill();
    }
}

// A fixed sequence of pseudo-random numbers, so that a failure comes back the same way.
function random(seed) {
    let x = seed >>> 0;
    return () => {
        x ^= x << 13; x >>>= 0;
        x ^= x >>> 17;
        x ^= x << 5; x >>>= 0;
        return x / 4294967296;
    };
}

async function shapes() {
    console.log('-- every request, arguments of every shape, against a live emulator');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'copperline-dap-hostile-'));
    const info = path.join(dir, 'control.json');
    const emu = cp.spawn(EXE, ['--factory', '--noaudio', '--control', `dap-hostile-${process.pid}`, '--control-info', info],
        { stdio: ['ignore', 'ignore', 'ignore'] });
    const emuExit = new Promise((resolve) => emu.on('exit', (code) => resolve(code)));
    try {
        for (let i = 0; i < 200 && !fs.existsSync(info); ++i) await new Promise((res) => setTimeout(res, 50));
        const adapter = cp.spawn(CTL, ['--dap'], { stdio: ['pipe', 'pipe', 'ignore'] });
        const r = new Reader(adapter.stdout);
        let seq = 1;
        const request = (command, args) => {
            const s = seq++;
            adapter.stdin.write(framed(args === undefined ? { seq: s, type: 'request', command }
                : { seq: s, type: 'request', command, arguments: args }));
            return s;
        };
        let m = await r.wait(response(request('attach', { controlInfo: info })), 'attach', 0, 15000);
        assert.strictEqual(m.success, true, m.message);
        await r.wait(response(request('configurationDone', {})), 'configurationDone');

        const values = [null, true, 0, -1, 1, 3, 2 ** 31, 2 ** 53, 1.5, '', 'x', '0x10', '$FC0000', '-5',
            '!status', 'it->x', [], [1], ['address-error'], [{}], [{ line: 'a' }], [{ name: 3, dataId: 'expr:0:x' }],
            {}, { path: 5 }, { path: '/no/such.c' }];
        const keys = ['source', 'breakpoints', 'lines', 'line', 'endLine', 'name', 'variablesReference', 'frameId',
            'threadId', 'startFrame', 'levels', 'expression', 'context', 'memoryReference', 'offset', 'count', 'data',
            'instructionOffset', 'instructionCount', 'filters', 'filterOptions', 'dataId', 'accessType', 'granularity',
            'value', 'file', 'bar', 'select', 'tree', 'start', 'mode', 'end', 'asAddress', 'bytes', 'program',
            'controlInfo', 'socket'];
        // Not terminate or disconnect (they end the session) nor copperline/profile (a
        // capture on a running machine answers when it ends, by design).
        const commands = ['initialize', 'launch', 'attach', 'setBreakpoints', 'setFunctionBreakpoints',
            'setInstructionBreakpoints', 'dataBreakpointInfo', 'setDataBreakpoints', 'setExceptionBreakpoints',
            'breakpointLocations', 'threads', 'stackTrace', 'scopes', 'variables', 'setVariable', 'evaluate',
            'continue', 'next', 'stepIn', 'stepOut', 'stepBack', 'reverseContinue', 'pause', 'disassemble',
            'readMemory', 'writeMemory', 'loadedSources', 'exceptionInfo', 'copperline/coverage', 'copperline/strip',
            'source', 'restart', 'goto'];
        const rnd = random(1985);
        const pick = (list) => list[Math.floor(rnd() * list.length)];
        const sent = [];
        for (let round = 0; round < 12; ++round) {
            for (const command of commands) {
                let args;
                if (rnd() < 0.1) {
                    args = pick(values);
                } else {
                    args = {};
                    const n = Math.floor(rnd() * 5);
                    for (let k = 0; k < n; ++k) args[pick(keys)] = pick(values);
                }
                sent.push(request(command, args));
            }
            // Now and then the machine stands still again, so that the paused-only requests run too.
            sent.push(request('pause', {}));
        }
        const from = 0;
        for (const s of sent) {
            m = await r.wait(response(s), `the answer to request ${s}`, from, 60000);
            assert.strictEqual(typeof m.success, 'boolean');
            assert.ok(m.success || typeof m.message === 'string', `a refusal says why: ${JSON.stringify(m)}`);
        }
        console.log(`   ${r.messages.filter((x) => x.type === "response" && x.success).length} answered with success, ${r.messages.filter((x) => x.type === "response" && !x.success).length} refused`);
        const answers = r.messages.filter((x) => x.type === 'response').map((x) => x.request_seq);
        assert.strictEqual(new Set(answers).size, answers.length, 'each request is answered once');
        m = await r.wait(response(request('threads', {})), 'threads after it all');
        assert.strictEqual(m.success, true);
        assert.strictEqual(m.body.threads[0].name, 'CPU');
        m = await r.wait(response(request('disconnect', { terminateDebuggee: true })), 'disconnect', 0, 20000);
        assert.strictEqual(m.success, true);
        assert.strictEqual(await emuExit, 0, 'the attached emulator quit as asked');
        adapter.stdin.end();
    } finally {
        emu.kill();
        fs.rmSync(dir, { recursive: true, force: true });
    }
}

(async () => {
    await stdio();
    await tcp();
    await shapes();
    console.log('dap_hostile: passed');
    process.exit(0);
})().catch((e) => {
    console.error(`dap_hostile: FAILED: ${e.stack || e}`);
    process.exit(1);
});
