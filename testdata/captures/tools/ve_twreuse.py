import socket, sys, time
# client: two connections from the same source port; the server closes first (server TIME_WAIT)
mode = sys.argv[1]
if mode == 'server':
    ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(('10.65.0.2', 5072)); ls.listen(8); ls.settimeout(15)
    for i in range(2):
        c, _ = ls.accept(); c.recv(100); c.sendall(b'x' * 2000); c.close()
else:
    for i in range(2):
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(('10.65.0.1', 40123)); s.settimeout(10)
        s.connect(('10.65.0.2', 5072)); s.sendall(b'GET\n')
        n = 0
        while True:
            b = s.recv(4096)
            if not b: break
            n += len(b)
        s.close(); print('conn', i, n); time.sleep(1)
