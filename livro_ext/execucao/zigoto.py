"""Zigoto: no build, os kernels das páginas nascem de um processo que já importou o pesado.

Cada página roda num kernel novo: nada de uma página passa para outra. Mas partir um kernel
do zero custa uns 0,5 s de CPU (IPython, ipykernel, zmq), e a página que desenha uma figura
paga mais uns 0,65 s de matplotlib. Em 13 páginas, isso é metade do CPU de um build limpo.

O zigoto importa esses módulos uma vez. Para cada kernel, faz um `fork`: o filho é um
processo novo, com os módulos já carregados e sem nenhum estado de outra página, e vira o
kernel (roda o próprio módulo `ipykernel_launcher`, como `python -m ipykernel_launcher`).

As peças:
- `ligar(app)` (no build): parte o zigoto, escreve um kernelspec `python3` numa pasta
  temporária e põe a pasta na frente do JUPYTER_PATH; no fim do build, desliga o zigoto
  (esperando por ele: o CPU dos kernels conta no do build) e apaga a pasta.
- `python -I -S .../zigoto.py -f ARQUIVO` (o argv desse kernelspec): o lançador. Pede ao
  zigoto um kernel, passa a ele a pasta, o ambiente e os descritores 0, 1 e 2, repassa os
  sinais (interromper, terminar) e sai com o código do kernel. Se algo falhar antes do fork,
  vira o kernel de sempre (`os.execv` do ipykernel_launcher), com um aviso.
- `servidor(SOQUETE)`, partido pelo build com `python -c`: o zigoto.

Só o build usa o zigoto. A trava rápida (`rapido.py`) parte kernels do zero, e o pytest
exige a mesma razão dos dois: um kernel nascido do zigoto não pode mudar nenhum número.
`LIVRO_ZIGOTO=0 make book` desliga o zigoto.
"""
from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import socket
import sys
import time

VARIAVEL = "LIVRO_ZIGOTO"       # a pasta do zigoto (o lançador a lê no ambiente do kernel)
# Um arquivo: se o ambiente do build o aponta, o zigoto escreve ali uma linha JSON por kernel
# (a ordem em que nasceu e o CPU dele) e, no fim, o CPU dele mesmo (dev/bench_build.py o lê).
REGISTRO_CPU = "LIVRO_ZIGOTO_CPU"
DONO = "LIVRO_ZIGOTO_DONO"      # o pid do build: sem ele vivo, o zigoto sai
# O que o zigoto importa antes de qualquer fork: o kernel inteiro e o que as páginas usam.
# torch não (só o laboratório o usa, e as threads dele não atravessam um fork).
# O ipykernel.debugger (e o debugpy dele) o kernel importa ao iniciar: sem ele aqui, cada página
# pagava de novo uns 0,1–0,2 s de CPU.
# O resto (psutil, o depurador, o inspetor do IPython, o SVG do matplotlib, os formatos do PIL)
# cada kernel importava de novo ao partir ou ao desenhar a primeira figura.
PRECARGA = ("ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.zmqshell", "ipykernel.debugger",
            "IPython.display", "myst_nb.ext.glue", "numpy", "matplotlib.pyplot",
            "matplotlib_inline.backend_inline",
            "psutil", "pdb", "IPython.core.debugger", "IPython.core.oinspect", "IPython.core.completerlib",
            "IPython.extensions.storemagic", "tornado.platform.asyncio", "numpy.random",
            "matplotlib.backends.backend_svg", "PIL.BmpImagePlugin", "PIL.GifImagePlugin",
            "PIL.JpegImagePlugin", "PIL.PpmImagePlugin", "PIL.PngImagePlugin")
ESPERA_PARTIDA = 10.0           # s para o zigoto (partido no início do build) escutar
# O que o jupyter_client (e este módulo) põe no ambiente de cada kernel. Qualquer outra
# diferença entre o ambiente do kernel pedido e o do zigoto (OPENBLAS_NUM_THREADS, MPLBACKEND...)
# vale na hora de importar; então o zigoto recusa, e o kernel parte do zero.
DO_KERNEL = {"JPY_PARENT_PID", "JPY_SESSION_NAME", "JUPYTER_PATH", "PYDEVD_DISABLE_FILE_VALIDATION", VARIAVEL}
_LANCADOR = ("-m", "ipykernel_launcher")


# ---------------------------------------------------------------- o build

def disponivel() -> bool:
    """Só no Linux: fork depois de importar o matplotlib não é seguro no macOS, o Windows não
    tem fork, e o zigoto espera cada kernel por um pidfd (Linux 5.3+). Fora dele, kernels de sempre."""
    return sys.platform.startswith("linux") and hasattr(os, "pidfd_open") and hasattr(socket, "send_fds")


def ligar(app):
    """builder-inited: parte o zigoto (filho do build) e faz do lançador o kernelspec `python3`.

    O zigoto é filho do processo do Sphinx e espera cada kernel que cria: o CPU dos kernels
    entra no do build (`make bench` o mede assim). Ele só importa o pesado no primeiro pedido:
    um build que não executa nada (tudo no cache) quase não paga por ele."""
    import subprocess
    import tempfile

    if os.environ.get(VARIAVEL) == "0" or not disponivel():
        return
    pasta = tempfile.mkdtemp(prefix="livro-zigoto-")
    spec = os.path.join(pasta, "kernels", "python3")
    os.makedirs(spec)
    with open(os.path.join(spec, "kernel.json"), "w", encoding="utf-8") as f:
        # O lançador roda este arquivo num Python isolado e sem o `site` (-I -S): ele só usa a
        # biblioteca padrão, e partir assim custa uns 20 ms de CPU em vez de 50 (13 por build).
        # O histórico do IPython desligado: o kernel de uma página não grava nada em ~/.ipython.
        json.dump({"argv": [sys.executable, "-I", "-S", os.path.abspath(__file__), "-f", "{connection_file}",
                            "--HistoryManager.enabled=False"],
                   "display_name": "Python 3 (ipykernel)", "language": "python",
                   "metadata": {"debugger": True}}, f)
    antes = {k: os.environ.get(k) for k in ("JUPYTER_PATH", VARIAVEL, DONO)}
    os.environ[DONO] = str(os.getpid())
    # Com -c, o caminho de importação começa pela pasta atual (""), como o de um kernel de sempre
    # começa; o próprio ipykernel_launcher a trata no filho do mesmo jeito (o teste compara os dois).
    codigo = f"from livro_ext.execucao.zigoto import servidor; servidor({os.path.join(pasta, 'zigoto.sock')!r})"
    processo = subprocess.Popen([sys.executable, "-c", codigo], stdin=subprocess.DEVNULL,
                                # o ambiente de os.environ, como o jupyter_client passa aos kernels (o do
                                # processo em C pode ter mais: uma biblioteca que chamou setenv)
                                env=dict(os.environ))
    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (pasta, antes["JUPYTER_PATH"]) if p)
    os.environ[VARIAVEL] = pasta
    feito = []

    def desligar(*_):
        if feito:
            return
        feito.append(True)
        processo.terminate()
        try:
            processo.wait(timeout=15)
        except subprocess.TimeoutExpired:
            processo.kill()
            processo.wait()
        import shutil

        shutil.rmtree(pasta, ignore_errors=True)
        for k, v in antes.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    app.connect("build-finished", desligar)
    import atexit

    atexit.register(desligar)


# ---------------------------------------------------------------- o lançador

def _kernel_de_sempre(argv):
    os.execv(sys.executable, [sys.executable, *_LANCADOR, *argv])


def _conecta(caminho: str):
    """Um soquete ligado ao zigoto (que o build acabou de partir: espera ele escutar)."""
    limite = time.monotonic() + ESPERA_PARTIDA
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(caminho)
            return s
        except OSError:
            s.close()
            if time.monotonic() > limite:
                raise
            time.sleep(0.02)


def _linha(s: socket.socket, buf: bytearray) -> str | None:
    while b"\n" not in buf:
        pedaco = s.recv(4096)
        if not pedaco:
            return None
        buf += pedaco
    i = buf.index(b"\n")
    linha = bytes(buf[:i]).decode()
    del buf[:i + 1]
    return linha


def lancador(argv: list[str]):
    """O kernel pedido ao zigoto; o processo espera por ele e sai com o código dele."""
    pasta = os.environ.get(VARIAVEL)
    if not pasta or pasta == "0" or not os.path.isdir(pasta):
        _kernel_de_sempre(argv)
    try:
        s = _conecta(os.path.join(pasta, "zigoto.sock"))
        pedido = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}).encode() + b"\n"
        socket.send_fds(s, [pedido], [0, 1, 2])
        buf = bytearray()
        resposta = _linha(s, buf)
        if not resposta or not resposta.startswith("pid "):
            raise OSError(f"o zigoto respondeu {resposta!r}")  # "recusa: ...": outro ambiente
        pid = int(resposta.split()[1])
    except OSError as e:
        print(f"[zigoto] sem zigoto ({e}); kernel partido do zero", file=sys.stderr)
        _kernel_de_sempre(argv)

    def repassa(sinal, _quadro):
        with contextlib.suppress(OSError):
            os.kill(pid, sinal)

    for sinal in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(sinal, repassa)
    fim = _linha(s, buf)
    codigo = int(fim.split()[1]) if fim and fim.startswith("fim ") else 1
    if codigo < 0:                       # morto por um sinal: o lançador sai do mesmo jeito
        signal.signal(-codigo, signal.SIG_DFL)
        os.kill(os.getpid(), -codigo)
    sys.exit(codigo)


# ---------------------------------------------------------------- o zigoto

def _filho(pedido: dict, fds: list[int]):
    """No processo novo: vira o kernel pedido (nunca volta)."""
    codigo = 1
    try:
        for i, fd in enumerate(fds[:3]):
            os.dup2(fd, i)
        for fd in fds:
            os.close(fd)
        # os sinais como num Python que acabou de partir (o SIGTERM do zigoto volta ao padrão;
        # o SIGPIPE o Python já deixa ignorado, e fica)
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

        # o próprio `python -m ipykernel_launcher`, com os módulos já importados
        runpy.run_module(_LANCADOR[1], run_name="__main__", alter_sys=True)
        codigo = 0
    except SystemExit as e:
        codigo = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(codigo)


def _precarga():
    import importlib

    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")  # como o ipykernel
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # como o jupyter_client põe no kernel
    for nome in PRECARGA:
        with contextlib.suppress(ImportError):
            importlib.import_module(nome)


def servidor(caminho: str):
    """O zigoto: escuta em `caminho`; no primeiro pedido importa PRECARGA; um fork por pedido.

    Sai com SIGTERM (o fim do build) ou quando o build (pid em LIVRO_ZIGOTO_DONO) some; antes
    de sair, mata e espera os kernels que ainda vivem."""
    import selectors

    dono = int(os.environ.get(DONO) or 0)
    base = dict(os.environ)             # o ambiente em que o zigoto importa
    sel = selectors.DefaultSelector()
    escuta = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    provisorio = caminho + f".{os.getpid()}"
    escuta.bind(provisorio)
    escuta.listen(16)
    os.rename(provisorio, caminho)      # o soquete só aparece quando já escuta
    sel.register(escuta, selectors.EVENT_READ, ("escuta", None))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    filhos: dict[int, tuple[socket.socket, int]] = {}   # pid -> (conexão do lançador, pidfd)
    ordem: dict[int, int] = {}                           # pid -> o n-ésimo kernel deste zigoto
    carregado = False
    nascidos = itertools.count(1)
    registro = os.environ.get(REGISTRO_CPU)

    def registra(**dados):
        if registro:
            try:
                with open(registro, "a", encoding="utf-8") as f:
                    f.write(json.dumps(dados) + "\n")
            except OSError:
                pass                    # sem onde escrever, o benchmark fica sem o número; o build segue

    def termina(pid, avisa=True):
        conn, pidfd = filhos.pop(pid)
        sel.unregister(conn)
        sel.unregister(pidfd)
        os.close(pidfd)
        try:
            _, estado, uso = os.wait4(pid, 0)
            codigo = os.waitstatus_to_exitcode(estado)
            registra(ordem=ordem.pop(pid, 0), cpu=round(uso.ru_utime + uso.ru_stime, 3))
        except ChildProcessError:
            codigo = 1
        if avisa:
            with contextlib.suppress(OSError):
                conn.sendall(f"fim {codigo}\n".encode())
        conn.close()

    def _atende(conn):
        """Um pedido: recusa (outro ambiente) ou faz o fork e responde com o pid do kernel."""
        nonlocal carregado
        msg, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
        try:
            while not msg.endswith(b"\n"):
                mais = conn.recv(1 << 20)
                if not mais:
                    raise OSError("pedido incompleto")
                msg += mais
            pedido = json.loads(msg)
            outras = sorted(k for k in (set(base) | set(pedido["env"])) - DO_KERNEL
                            if base.get(k) != pedido["env"].get(k))
            if outras:
                diferencas = ", ".join(f"{k} ({base.get(k)!r} no zigoto, {pedido['env'].get(k)!r} no kernel)"
                                       for k in outras)
                conn.sendall(f"recusa: ambiente diferente em {diferencas}\n".encode())
                conn.close()
                return
            if not carregado:
                _precarga()
                carregado = True
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
        filhos[novo] = (conn, pidfd)
        ordem[novo] = next(nascidos)
        sel.register(conn, selectors.EVENT_READ, ("lancador", novo))
        sel.register(pidfd, selectors.EVENT_READ, ("filho", novo))
        conn.sendall(f"pid {novo}\n".encode())

    try:
        while True:
            for chave, _ in sel.select(timeout=1.0):
                tipo, pid = chave.data
                if tipo == "escuta":
                    conn, _ = escuta.accept()
                    try:
                        _atende(conn)
                    except Exception as e:          # um pedido estragado não derruba o zigoto:
                        print(f"[zigoto] pedido recusado: {e!r}", file=sys.stderr)   # o lançador
                        conn.close()                # sem resposta parte o kernel do zero
                    continue
                elif tipo == "filho" and pid in filhos:
                    termina(pid)
                elif tipo == "lancador" and pid in filhos and not filhos[pid][0].recv(1):
                    with contextlib.suppress(OSError):   # o lançador morreu: o kernel vai junto
                        os.kill(pid, signal.SIGKILL)
                    termina(pid, avisa=False)
            if dono:
                try:
                    os.kill(dono, 0)
                except ProcessLookupError:
                    break
    finally:
        for pid in list(filhos):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            termina(pid, avisa=False)
        with contextlib.suppress(OSError):
            os.unlink(caminho)
        import resource

        eu = resource.getrusage(resource.RUSAGE_SELF)
        registra(zigoto=round(eu.ru_utime + eu.ru_stime, 3))


if __name__ == "__main__":
    lancador(sys.argv[1:])
