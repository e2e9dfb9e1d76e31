#!/usr/bin/env python3
"""Ingest and propagation through the reference deployment with 1, 2 or 3 server processes.

    deploy/bench.py --servers 1 2 3 --devices 24 --seconds 20

For each server count: starts deploy/start.sh (in its own folder, on its own ports), adds one
user per device, then for --seconds runs
  * ingest: every device saves batches of --batch records into its own zone, back to back,
    through HAProxy; counts acknowledged records per second;
  * propagation: one more user's writer saves one record every 100 ms while a second device of
    that user polls its zone's changes back to back; the delay is from the save's
    acknowledgement to the poll that first returns it (so it includes up to one poll).
Prints one Markdown row per server count. The load generator runs on the same machine and
competes for its cores (say so when quoting the numbers).
"""
import argparse, http.client, json, os, socket, subprocess, sys, threading, time, uuid

DEPLOY = os.path.dirname(os.path.abspath(__file__))


def cpu_seconds(pids):
    """User + system CPU seconds of the given processes (those still alive)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            pass
    return total


def children(pid):
    """The processes whose parent is pid."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if int(open("/proc/%s/stat" % entry).read().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return found


def groups(deploy_dir, ports):
    """The deployment's processes: PostgreSQL (both nodes, every backend), nimbus servers, HAProxy."""
    postgres = []
    for node in ("a", "b"):
        try:
            postmaster = int(open("%s/pg-%s/data/postmaster.pid" % (deploy_dir, node)).readline())
            postgres += [postmaster] + children(postmaster)
        except (OSError, ValueError):
            pass
    servers = [int(open("%s/server-%d.pid" % (deploy_dir, p)).read()) for p in ports]
    haproxy = [int(open(deploy_dir + "/haproxy.pid").read().split()[0])]
    return {"postgres": postgres, "nimbus": servers, "haproxy": haproxy}


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port


class Client:
    def __init__(self, port, token):
        self.port, self.token, self.conn = port, token, None

    def call(self, method, path, body=None):
        for attempt in range(3):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                data = json.dumps(body).encode() if body is not None else None
                self.conn.request(method, path, body=data, headers={"Authorization": "Bearer " + self.token, "Content-Type": "application/json"})
                reply = self.conn.getresponse()
                return reply.status, reply.read()
            except (OSError, http.client.HTTPException):
                self.conn = None
        return 0, b""

    def zone(self, zone):
        return "/v1/containers/app/databases/private/zones/" + zone

    def save(self, zone, names, n):
        fields = {"n": {"value": {"type": "int64", "value": n}, "stamp": {"time": 1, "device": "bench"}}}
        records = [{"recordName": name, "recordType": "Item", "fields": fields} for name in names]
        status, _ = self.call("POST", self.zone(zone) + "/records/modify", {"saves": records, "savePolicy": "changedKeys"})
        return status == 200

    def changes(self, zone, token):
        status, body = self.call("POST", self.zone(zone) + "/changes", {"since": token} if token else {})
        return json.loads(body) if status == 200 else None


def run(servers, devices, seconds, batch, nimbus):
    ports = [free_port() for _ in range(9)]
    env = dict(os.environ, DEPLOY_DIR="/tmp/nimbus-bench-" + uuid.uuid4().hex[:8], NIMBUS_BIN=nimbus,
               PG_A_PORT=str(ports[0]), PG_B_PORT=str(ports[1]), PG_WRITE_PORT=str(ports[2]), PG_READ_PORT=str(ports[3]),
               HTTP_PORT=str(ports[4]), HAPROXY_STATS_PORT=str(ports[5]), SERVER_PORTS=" ".join(map(str, ports[6:6 + servers])),
               NIMBUS_LOG_LEVEL="error")
    subprocess.run([DEPLOY + "/start.sh"], env=env, check=True, stdout=subprocess.DEVNULL)
    try:
        url = "postgres://postgres@127.0.0.1:%d/nimbus" % ports[2]
        admin = ["--data-dir", env["DEPLOY_DIR"] + "/admin", "--postgres", url]
        def token(user, device):
            return subprocess.run([nimbus, "tokens", "create", "--user", user, "--device", device] + admin,
                                  check=True, capture_output=True, text=True).stdout.strip()
        clients = []
        for i in range(devices + 1):
            subprocess.run([nimbus, "users", "add", "u%d" % i] + admin, check=True, capture_output=True)
            clients.append(Client(ports[4], token("u%d" % i, "d%d" % i)))
        reader = Client(ports[4], token("u%d" % devices, "reader"))
        for c in clients:
            c.call("PUT", c.zone("z"))
        stop = time.time() + seconds
        acked = [0] * devices
        def writer(i):
            k = 0
            while time.time() < stop:
                if clients[i].save("z", ["r%d-%d" % (k, j) for j in range(batch)], k):
                    acked[i] += batch
                k += 1
        delays, pending, lock = [], {}, threading.Lock()
        def probe_writer():
            k = 0
            while time.time() < stop:
                if clients[devices].save("z", ["p%d" % k], k):
                    with lock: pending["p%d" % k] = time.monotonic()
                k += 1
                time.sleep(0.1)
        def probe_reader():
            token = None
            while time.time() < stop + 2:
                page = reader.changes("z", token)
                if not page: continue
                token = page["changeToken"]
                now = time.monotonic()
                with lock:
                    for r in page["records"]:
                        t = pending.pop(r["recordName"], None)
                        if t is not None: delays.append(now - t)
        threads = [threading.Thread(target=writer, args=(i,)) for i in range(devices)]
        threads += [threading.Thread(target=probe_writer), threading.Thread(target=probe_reader)]
        start = time.time()
        for t in threads: t.start()
        time.sleep(1)  # backends start with the load; count them once it runs
        procs = groups(env["DEPLOY_DIR"], ports[6:6 + servers])
        before = {k: cpu_seconds(v) for k, v in procs.items()}
        self_before, measured_from = time.process_time(), time.time()
        time.sleep(max(0, stop - time.time() - 1))
        cores = {k: (cpu_seconds(v) - before[k]) / (time.time() - measured_from) for k, v in procs.items()}
        cores["load generator"] = (time.process_time() - self_before) / (time.time() - measured_from)
        for t in threads: t.join()
        elapsed = min(time.time(), stop) - start
        delays.sort()
        pct = lambda p: "%.0f ms" % (1000 * delays[min(len(delays) - 1, int(p * len(delays)))]) if delays else "n/a"
        busy = ", ".join("%s %.2f" % (k, v) for k, v in cores.items())
        print("| %d | %d | %d | %.0f | %s | %s | %s |" % (servers, devices, batch, sum(acked) / elapsed, pct(0.5), pct(0.95), busy), flush=True)
    finally:
        subprocess.run([DEPLOY + "/stop.sh", "--purge"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--devices", type=int, default=24)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--batch", type=int, default=20)
    parser.add_argument("--nimbus", default=os.environ.get("NIMBUS_BIN", ""))
    args = parser.parse_args()
    nimbus = args.nimbus or next((p for p in (os.path.join(DEPLOY, "..", ".build", b, "nimbus") for b in ("release", "debug")) if os.access(p, os.X_OK)), None)
    if not nimbus:
        sys.exit("no nimbus binary: swift build -c release, or --nimbus PATH")
    print("| servers | devices | records/batch | records/s acknowledged | propagation p50 | p95 | cores busy |")
    print("|---|---|---|---|---|---|---|")
    for n in args.servers:
        run(n, args.devices, args.seconds, args.batch, os.path.abspath(nimbus))


if __name__ == "__main__":
    main()
