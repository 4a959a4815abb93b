# gdb script (gdb -p PID -batch -x dump_rank.py): the state of a Tern rank
# that a hung job leaves, for tests/cluster/lib.sh's dump_stacks. It prints,
# one line each, what tells a lost message from a call the ranks disagree
# on: how often the rank polled and slept, the packets it sent each peer
# and received from it, the p2p core's counters, each peer's queued
# packets, the posted and unexpected queues with their envelopes, each
# shared-memory ring's positions, each TCP connection's buffers, and the
# collective schedule that a blocking call waits in. A part that this rank
# lacks (no shm peer, no schedule) prints why it is skipped and the rest
# goes on.
import gdb

MAX_LIST = 8


def value(expr):
    return gdb.parse_and_eval(expr)


def section(name, fn):
    try:
        fn()
    except gdb.error as e:
        print("%s: skipped (%s)" % (name, e))


def listed(head, limit=MAX_LIST):
    """The first `limit` nodes of a list linked through `next`."""
    node, n = head, 0
    while int(node) and n < limit:
        yield node
        node = node["next"]
        n += 1


def counters():
    """What the second look compares with the first: whether the rank
    polls without sleeping, and the packets it exchanged with each peer."""
    p = value("tern_p2p")
    print("counters: progress calls %d (busy %d), sleeps %d" %
          (int(p["progress_calls"]), int(p["progress_busy"]), int(p["sleeps"])))
    print("counters: packets sent/received per peer: %s" %
          " ".join("%d:%d/%d" % (i, int(p["peers"][i]["sent"]), int(p["peers"][i]["received"]))
                   for i in range(int(p["npeers"]))))


def p2p():
    p = value("tern_p2p")
    print("p2p: pending %d active_sends %d unexp_arrivals %d notice_arrivals %d" %
          (int(p["pending"]), int(p["active_sends"]), int(p["unexp_arrivals"]),
           int(p["notice_arrivals"])))
    for i in range(int(p["npeers"])):
        peer = p["peers"][i]
        if int(peer["sendq_head"]) or int(peer["ctl_head"]):
            print("p2p: peer %d has queued sends %s, queued control packets %s" %
                  (i, peer["sendq_head"], peer["ctl_head"]))
    for r in listed(p["mq"]["posted_head"]):
        print("posted: ctx %d rank %d tag %#x len %d kind %d" %
              (int(r["ctx"]), int(r["rank"]), int(r["tag"]) & 0xffffffff, int(r["len"]),
               int(r["kind"])))
    for u in listed(p["mq"]["unexp_head"]):
        print("unexpected: ctx %d src %d tag %#x len %d type %d" %
              (int(u["ctx"]), int(u["src"]), int(u["tag"]) & 0xffffffff, int(u["len"]),
               int(u["type"])))


def static(name, file, plausible):
    """The static variable `name` of source file `file`. Several files have
    one of that name, and a build with link-time optimization renames them
    (st.lto_priv.0, ...) and loses their location, so each of those is
    tried with the type that the debug information gives, and the first
    one whose fields are plausible(v) is taken."""
    types = [sym.type for sym in gdb.lookup_static_symbols(name)
             if sym.symtab and sym.symtab.filename.endswith("/" + file)]
    if not types:
        raise gdb.error("no symbol %s in %s" % (name, file))
    candidates = [name] + ["%s.lto_priv.%d" % (name, i) for i in range(8)]
    for c in candidates:
        try:
            addr = value("(char *)&'%s'" % c)
        except gdb.error:
            continue
        v = addr.cast(types[0].pointer()).dereference()
        try:
            if plausible(v):
                return v
        except gdb.error:
            continue
    raise gdb.error("%s of %s not found (optimized out)" % (name, file))


def shm():
    st = static("st", "shm.c",
                lambda v: 0 <= int(v["local_rank"]) < int(v["local_size"]) <= 4096 and
                int(v["connected"]) in (0, 1) and int(v["in_progress"]) in (0, 1))
    if not int(st["connected"]):
        print("shm: not connected")
        return
    print("shm: local rank %d of %d, in_progress %d" %
          (int(st["local_rank"]), int(st["local_size"]), int(st["in_progress"])))
    for l in range(int(st["local_size"])):
        if l == int(st["local_rank"]):
            continue
        peer = st["peers"][l]
        out, inn = peer["out"], peer["in"]
        mask = int(inn["ncells"]) - 1
        tail = int(inn["tail"])
        cells = inn["cells"].address.cast(gdb.lookup_type("char").pointer())
        cell = cells + (tail & mask) * int(inn["cell_size"])
        seq = int(cell.cast(gdb.lookup_type("uint32_t").pointer()).dereference())
        print("shm: to rank %d: head %d, its tail %d; from it: tail %d, next cell's "
              "seq %d (full when %d)" %
              (int(peer["world"]), int(out["head"]), int(out["tail"]), tail, seq,
               (tail + 1) & 0xffffffff))


def tcp():
    st = static("st", "tcp.c",
                lambda v: (int(v["enabled"]) == 0 and int(v["epfd"]) == -1 and
                           int(v["listen_fd"]) == -1) or
                (int(v["enabled"]) == 1 and 0 <= int(v["rank"]) < int(v["size"]) and
                 0 <= int(v["epfd"]) < 1 << 20))
    if not int(st["enabled"]):
        print("tcp: not used")
        return
    for c in listed(st["conns"], 16):
        print("tcp: conn fd %d peer %d state %d: ipos %d ilen %d placing %d, "
              "wpending %d wdone %d" %
              (int(c["fd"]), int(c["peer"]), int(c["state"]), int(c["ipos"]),
               int(c["ilen"]), int(c["placing"]), int(c["wpending"]), int(c["wdone"])))


def schedule():
    f = gdb.newest_frame()
    while f and f.name() != "tern_sched_start":
        f = f.older()
    if not f:
        print("schedule: no blocking collective on the stack")
        return
    s = f.read_var("s")
    print("schedule: seq %d tag %#x round %d of %d, posted %d, inquired %d, given_up %d, "
          "error %d" %
          (int(s["stamp"]["seq"]), int(s["stamp"]["tag"]) & 0xffffffff, int(s["cur"]) + 1,
           int(s["nrounds"]), int(s["posted"]), int(s["inquired"]), int(s["given_up"]),
           int(s["error"])))
    for i in range(int(s["nreqs"])):
        r = s["reqs"][i]
        print("schedule: request %d: kind %d rank %d tag %#x done %d state %d" %
              (i, int(r["kind"]), int(r["rank"]), int(r["tag"]) & 0xffffffff,
               int(r["done"]), int(r["state"])))


# gdb -ex 'set $counters_only = 1' -x dump_rank.py: the counters alone, for
# a second look a moment after the first.
if gdb.convenience_variable("counters_only") is not None:
    section("counters", counters)
else:
    for name, fn in (("counters", counters), ("p2p", p2p), ("shm", shm), ("tcp", tcp),
                     ("schedule", schedule)):
        section(name, fn)
