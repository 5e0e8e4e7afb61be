'use strict';
// The Debug Adapter (copperline-ctl --dap) against a client that sends what no client should:
// a body that is not JSON, a Content-Length shorter than its body, a header without one, a
// Content-Length of gigabytes (refused unread: the adapter's memory stays small), a message
// that is not a request, an unknown command, bad launch arguments. Each earns an error
// response (where the message had a seq) or an output event and a line on stderr, and the
// adapter goes on answering. Then the same over --dap-listen's TCP port.

const assert = require('assert');
const cp = require('child_process');
const fs = require('fs');
const net = require('net');

const CTL = process.env.COPPERLINE_CTL;
if (!CTL) throw new Error('COPPERLINE_CTL is not set (ctest sets it)');

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

(async () => {
    await stdio();
    await tcp();
    console.log('dap_hostile: passed');
    process.exit(0);
})().catch((e) => {
    console.error(`dap_hostile: FAILED: ${e.stack || e}`);
    process.exit(1);
});
