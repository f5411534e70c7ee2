"""Zigoto: os kernels do build nascem de um `fork` de um processo que já importou o pesado (ver o
CONTRIBUINDO.md e o dev/MEDIDAS.md). `ligar` (no build) o parte; `python -I -S zigoto.py -f ARQUIVO`,
o kernelspec, é o lançador de cada kernel; `servidor` é o zigoto.
"""
from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
import signal
import socket
import sys

VARIAVEL = "LIVRO_ZIGOTO"       # a pasta do zigoto (o lançador a lê no ambiente do kernel); "0" desliga
REGISTRO_CPU = "LIVRO_ZIGOTO_CPU"   # um arquivo: uma linha JSON com o CPU de cada kernel e, no fim, o do zigoto
# O kernel inteiro e o que as páginas usam (o torch não: as threads dele não atravessam um fork); cada
# um destes um kernel importava de novo ao partir ou ao desenhar a primeira figura.
PRECARGA = ("ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.zmqshell", "ipykernel.debugger",
            "IPython.display", "myst_nb.ext.glue", "numpy", "matplotlib.pyplot", "matplotlib_inline.backend_inline",
            "psutil", "pdb", "IPython.core.debugger", "IPython.core.oinspect", "IPython.core.completerlib",
            "IPython.extensions.storemagic", "tornado.platform.asyncio", "numpy.random",
            "matplotlib.backends.backend_svg", "PIL.BmpImagePlugin", "PIL.GifImagePlugin",
            "PIL.JpegImagePlugin", "PIL.PpmImagePlugin", "PIL.PngImagePlugin")
# O que o jupyter_client (e este módulo) põe no ambiente de cada kernel. Outra diferença entre o ambiente
# do kernel e o do zigoto (OPENBLAS_NUM_THREADS...) valeu ao importar: o zigoto recusa, e o kernel parte do zero.
DO_KERNEL = {"JPY_PARENT_PID", "JPY_SESSION_NAME", "JUPYTER_PATH", "PYDEVD_DISABLE_FILE_VALIDATION", VARIAVEL}
_LANCADOR = ("-m", "ipykernel_launcher")


def disponivel() -> bool:
    """Só no Linux (fork depois do matplotlib não é seguro no macOS; o pidfd pede o Linux 5.3)."""
    return sys.platform.startswith("linux") and hasattr(os, "pidfd_open") and hasattr(socket, "send_fds")


def ligar(app):
    """builder-inited: parte o zigoto (filho do build: o CPU dos kernels entra no dele) e faz do
    lançador o kernelspec `python3`, numa pasta temporária na frente do JUPYTER_PATH."""
    import atexit
    import shutil
    import subprocess
    import tempfile

    if os.environ.get(VARIAVEL) == "0" or not disponivel():
        return
    pasta = tempfile.mkdtemp(prefix="livro-zigoto-")
    spec = os.path.join(pasta, "kernels", "python3")
    os.makedirs(spec)
    with open(os.path.join(spec, "kernel.json"), "w", encoding="utf-8") as f:
        # -I -S: o lançador só usa a biblioteca padrão e parte mais rápido; o kernel não grava o histórico do
        # IPython em ~/.ipython; interromper é uma mensagem ao kernel (o lançador não repassa sinais).
        json.dump({"argv": [sys.executable, "-I", "-S", os.path.abspath(__file__), "-f", "{connection_file}",
                            "--HistoryManager.enabled=False"],
                   "display_name": "Python 3 (ipykernel)", "language": "python", "interrupt_mode": "message",
                   "metadata": {"debugger": True}}, f)
    escuta = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)   # já escuta antes de o zigoto partir
    escuta.bind(os.path.join(pasta, "zigoto.sock"))
    escuta.listen(16)
    antes = {k: os.environ.get(k) for k in ("JUPYTER_PATH", VARIAVEL)}
    # Com -c, o sys.path começa pela pasta atual, como o de um kernel; o ambiente, o que o jupyter_client
    # passa aos kernels. O stdin fecha no fim do build (ou se o build morre), e o zigoto sai.
    processo = subprocess.Popen([sys.executable, "-c", f"from {__name__} import servidor; servidor({escuta.fileno()})"],
                                stdin=subprocess.PIPE, env=dict(os.environ), pass_fds=[escuta.fileno()])
    escuta.close()
    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (pasta, antes["JUPYTER_PATH"]) if p)
    os.environ[VARIAVEL] = pasta

    def desligar(*_):
        if processo.returncode is not None:     # já desligado
            return
        processo.stdin.close()
        try:
            processo.wait(timeout=15)
        except subprocess.TimeoutExpired:
            processo.kill()
            processo.wait()
        shutil.rmtree(pasta, ignore_errors=True)
        for k, v in antes.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    app.connect("build-finished", desligar)
    atexit.register(desligar)


def _kernel_de_sempre(argv):
    os.execv(sys.executable, [sys.executable, *_LANCADOR, *argv])


def lancador(argv: list[str]):
    """Pede o kernel ao zigoto (com a pasta, o ambiente e os descritores 0, 1 e 2) e espera por ele. Se
    algo falha antes do fork, vira o kernel de sempre, com um aviso."""
    pasta = os.environ.get(VARIAVEL)
    if not pasta or pasta == "0" or not os.path.isdir(pasta):
        _kernel_de_sempre(argv)
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)     # uma mensagem por send
        s.connect(os.path.join(pasta, "zigoto.sock"))
        pedido = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
        socket.send_fds(s, [pedido], [0, 1, 2])
        resposta = s.recv(1 << 16).decode()
        if not resposta.startswith("pid "):
            raise OSError(f"o zigoto respondeu {resposta!r}")  # "recusa: ...": outro ambiente
    except OSError as e:
        print(f"[zigoto] sem zigoto ({e}); kernel partido do zero", file=sys.stderr)
        _kernel_de_sempre(argv)
    fim = s.recv(100).decode()          # "fim N", quando o kernel sai; b"" se o zigoto morreu
    codigo = int(fim.split()[1]) if fim.startswith("fim ") else 1
    sys.exit(128 - codigo if codigo < 0 else codigo)     # morto pelo sinal n: 128 + n, como num shell


def _filho(pedido: dict, fds: list[int]):
    """No processo novo: vira o kernel pedido, o próprio `python -m ipykernel_launcher` (nunca volta)."""
    codigo = 1
    try:
        for i, fd in enumerate(fds[:3]):
            os.dup2(fd, i)
        for fd in fds:
            os.close(fd)
        # os sinais como num Python que acabou de partir (o SIGPIPE o Python já deixa ignorado)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.setpgid(0, 0)
        os.chdir(pedido["cwd"])
        os.environ.clear()
        os.environ.update(pedido["env"])
        sys.argv = [_LANCADOR[1], *pedido["argv"]]
        if os.environ.get("JPY_PARENT_PID"):   # o ipykernel lê isto ao ser importado: aqui, pela opção
            sys.argv.append(f"--IPKernelApp.parent_handle={int(os.environ['JPY_PARENT_PID'])}")
        import runpy

        runpy.run_module(_LANCADOR[1], run_name="__main__", alter_sys=True)
        codigo = 0
    except SystemExit as e:
        codigo = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(codigo)


@functools.cache
def _precarga():
    """No primeiro pedido (um build que tira tudo do cache não paga por ela)."""
    import importlib

    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")  # como o ipykernel
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # como o jupyter_client põe no kernel
    for nome in PRECARGA:
        with contextlib.suppress(ImportError):
            importlib.import_module(nome)


def servidor(fd: int):
    """O zigoto: um fork por pedido no soquete `fd`, até o stdin fechar; então mata e espera os kernels vivos."""
    import resource
    import selectors

    base = dict(os.environ)             # o ambiente em que o zigoto importa
    registro = os.environ.get(REGISTRO_CPU)
    escuta = socket.socket(fileno=fd)
    sel = selectors.DefaultSelector()
    sel.register(escuta, selectors.EVENT_READ, ("escuta", None))
    sel.register(sys.stdin, selectors.EVENT_READ, ("build", None))
    filhos: dict[int, tuple[socket.socket, int, int]] = {}   # pid -> (conexão do lançador, pidfd, ordem)
    nascidos = itertools.count(1)                            # a ordem: o n-ésimo kernel deste zigoto

    def registra(**dados):
        with contextlib.suppress(OSError):       # sem onde escrever, o bench fica sem o número
            if registro:
                with open(registro, "a", encoding="utf-8") as f:
                    f.write(json.dumps(dados) + "\n")

    def termina(pid):
        conn, pidfd, ordem = filhos.pop(pid)
        sel.unregister(conn)
        sel.unregister(pidfd)
        os.close(pidfd)
        try:
            _, estado, uso = os.wait4(pid, 0)
            codigo = os.waitstatus_to_exitcode(estado)
            registra(ordem=ordem, cpu=round(uso.ru_utime + uso.ru_stime, 3))
        except ChildProcessError:
            codigo = 1
        with contextlib.suppress(OSError):      # o lançador sai com o código do kernel
            conn.sendall(f"fim {codigo}".encode())
        conn.close()

    def atende(conn):
        """Um pedido: recusa (outro ambiente) ou faz o fork e responde com o pid do kernel."""
        msg, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
        try:
            pedido = json.loads(msg)
            env = pedido["env"]
            outras = sorted(k for k in (set(base) | set(env)) - DO_KERNEL if base.get(k) != env.get(k))
            if outras:
                diferencas = ", ".join(f"{k} ({base.get(k)!r} no zigoto, {env.get(k)!r} no kernel)" for k in outras)
                conn.sendall(f"recusa: ambiente diferente em {diferencas}".encode())
                conn.close()
                return
            _precarga()
            novo = os.fork()
            if novo == 0:
                sel.close()
                escuta.close()
                conn.close()
                _filho(pedido, fds)
        finally:
            for fd in fds:
                os.close(fd)
        try:
            pidfd = os.pidfd_open(novo)
        except OSError:
            os.kill(novo, signal.SIGKILL)   # sem como esperá-lo, o kernel não fica: o lançador
            os.waitpid(novo, 0)             # (sem resposta) parte um do zero
            raise
        filhos[novo] = (conn, pidfd, next(nascidos))
        sel.register(conn, selectors.EVENT_READ, ("lancador", novo))
        sel.register(pidfd, selectors.EVENT_READ, ("filho", novo))
        conn.sendall(f"pid {novo}".encode())

    try:
        while True:
            for chave, _ in sel.select():
                tipo, pid = chave.data
                if tipo == "build":             # o stdin fechou: o fim do build
                    return
                elif tipo == "escuta":
                    conn, _ = escuta.accept()
                    try:
                        atende(conn)
                    except Exception as e:          # um pedido estragado não derruba o zigoto: o
                        print(f"[zigoto] pedido recusado: {e!r}", file=sys.stderr)   # lançador sem
                        conn.close()                # resposta parte o kernel do zero
                elif tipo == "filho" and pid in filhos:
                    termina(pid)
                elif tipo == "lancador" and pid in filhos and not filhos[pid][0].recv(1):
                    with contextlib.suppress(OSError):   # o lançador morreu: o kernel vai junto
                        os.kill(pid, signal.SIGKILL)
                    termina(pid)
    finally:
        for pid in list(filhos):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            termina(pid)
        eu = resource.getrusage(resource.RUSAGE_SELF)
        registra(zigoto=round(eu.ru_utime + eu.ru_stime, 3))


if __name__ == "__main__":
    lancador(sys.argv[1:])
