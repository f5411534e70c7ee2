"""O zigoto do build (livro_ext/execucao/zigoto.py): kernels que nascem de um fork, um novo por página.

Cada teste parte o zigoto como o build parte (`ligar`, com um app de mentira que guarda os
ganchos) e pede kernels pelo jupyter_client, como o myst-nb pede."""
import contextlib
import json
import os
import resource
import signal
import time
from pathlib import Path

import pytest

from livro_ext.execucao import zigoto

pytestmark = pytest.mark.pesado  # parte kernels: segundos cada; o make check pula
pytest.importorskip("jupyter_client")
from jupyter_client.manager import start_new_kernel  # noqa: E402

RAIZ = Path(__file__).resolve().parents[1]
LIVRO = RAIZ / "book"


class App:
    def __init__(self):
        self.ganchos = {}

    def connect(self, evento, funcao):
        self.ganchos.setdefault(evento, []).append(funcao)

    def fim(self):
        for f in self.ganchos.get("build-finished", []):
            f(self, None)


@pytest.fixture
def zigoto_ligado(monkeypatch):
    """O zigoto partido já na fase do teste: o pytest muda PYTEST_CURRENT_TEST entre as fases,
    e o zigoto recusa (com razão) um ambiente diferente do seu."""
    for k in ("JUPYTER_PATH", zigoto.VARIAVEL):
        monkeypatch.delenv(k, raising=False)
    app = App()
    app.liga = lambda: zigoto.ligar(app)
    yield app
    app.fim()


def _roda(kc, codigo, timeout=60):
    """Executa `codigo` no kernel -> (status, texto que ele imprimiu)."""
    saida = []

    def guarda(msg):
        if msg["msg_type"] == "stream":
            saida.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            saida.append(msg["content"]["ename"])
    r = kc.execute_interactive(codigo, timeout=timeout, output_hook=guarda)
    return r["content"]["status"], "".join(saida).strip()


@contextlib.contextmanager
def _kernel(cwd=LIVRO):
    """Um kernel pedido como o myst-nb pede (kernelspec python3); fechado no fim."""
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(cwd))
    try:
        yield km, kc
    finally:
        kc.stop_channels()
        if km.has_kernel:
            km.shutdown_kernel(now=True)
        else:
            km.cleanup_resources()


def test_cada_kernel_nasce_do_zigoto_novo_e_sem_o_estado_do_outro(zigoto_ligado, tmp_path):
    # o sys.path, o argv[0], a pasta e os tratadores de sinal (SIG_IGN, SIG_DFL ou o nome da função)
    sonda = ("import json, os, sys, signal\n"
             "h = lambda n: getattr(signal.getsignal(n), '__qualname__', str(signal.getsignal(n)))\n"
             "print(json.dumps([sys.path, sys.argv[0], os.getcwd(), "
             "[h(n) for n in (signal.SIGPIPE, signal.SIGTERM, signal.SIGINT, signal.SIGCHLD)]]))")
    with _kernel() as (km, kc):              # antes do zigoto: um kernel partido do zero
        _, de_sempre = _roda(kc, sonda)
    zigoto_ligado.liga()
    with _kernel() as (km, kc):
        ok, pai = _roda(kc, "import os, sys; x = 41; print(os.getppid())")
        assert ok == "ok"
        # o pai do kernel não é o lançador que o jupyter_client partiu: é o zigoto
        assert int(pai) != km.provisioner.process.pid
        _, pre = _roda(kc, "print('matplotlib.pyplot' in sys.modules)")
        assert pre == "True"                 # já importado antes do fork
        # o mesmo sys.path, argv[0], pasta e sinais de um kernel partido do zero
        assert _roda(kc, sonda)[1] == de_sempre
    with _kernel(cwd=tmp_path) as (km, kc):
        ok, saida = _roda(kc, "import os; print('x' in dir(), os.getcwd(), os.getppid())")
        assert saida.split() == ["False", str(tmp_path), pai]   # mesmo zigoto, nenhum estado


def test_outro_ambiente_parte_um_kernel_do_zero(zigoto_ligado, monkeypatch):
    zigoto_ligado.liga()
    # OPENBLAS_NUM_THREADS vale na hora de importar o numpy: o zigoto, que já importou, recusa
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    with _kernel() as (km, kc):
        ok, saida = _roda(kc, "import os, sys; print('matplotlib.pyplot' in sys.modules, "
                              "os.environ['OPENBLAS_NUM_THREADS'], os.getpid())")
        pre, fios, pid = saida.split()
        assert (pre, fios) == ("False", "1")
        assert int(pid) == km.provisioner.process.pid       # o lançador virou o kernel (execv)


def test_interromper_chega_ao_kernel(zigoto_ligado):
    zigoto_ligado.liga()
    with _kernel() as (km, kc):
        pedido = kc.execute("import time; time.sleep(60)")
        time.sleep(1.0)
        t0 = time.monotonic()
        km.interrupt_kernel()
        resposta = kc.get_shell_msg(timeout=15)
        while resposta["parent_header"].get("msg_id") != pedido:    # respostas de antes (kernel_info)
            resposta = kc.get_shell_msg(timeout=15)
        assert (resposta["content"]["status"], resposta["content"]["ename"]) == ("error", "KeyboardInterrupt")
        assert time.monotonic() - t0 < 15
        # depois de um erro, o ipykernel descarta por um instante os pedidos que chegam ("aborted")
        for _ in range(20):
            ok, saida = _roda(kc, "print('vivo')", timeout=20)
            if ok != "aborted":
                break
            time.sleep(0.25)
        assert (ok, saida) == ("ok", "vivo")


def test_lancador_morto_leva_o_kernel_junto(zigoto_ligado):
    zigoto_ligado.liga()
    with _kernel() as (km, kc):
        _, pid = _roda(kc, "import os; print(os.getpid())")
        pid = int(pid)
        os.kill(km.provisioner.process.pid, signal.SIGKILL)
        limite = time.monotonic() + 10
        while time.monotonic() < limite:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            pytest.fail("o kernel continuou vivo sem o lançador")


def test_cpu_dos_kernels_entra_no_do_build_e_o_fim_limpa(zigoto_ligado, monkeypatch, tmp_path):
    registro = tmp_path / "cpu.jsonl"   # o que dev/bench_build.py lê: o CPU de cada kernel
    monkeypatch.setenv(zigoto.REGISTRO_CPU, str(registro))
    zigoto_ligado.liga()
    pasta = os.environ[zigoto.VARIAVEL]
    antes = resource.getrusage(resource.RUSAGE_CHILDREN)
    with _kernel() as (km, kc):
        ok, _ = _roda(kc, "import time\nt = time.process_time()\nwhile time.process_time() - t < 1.0: pass")
        assert ok == "ok"
    zigoto_ligado.fim()
    depois = resource.getrusage(resource.RUSAGE_CHILDREN)
    # o zigoto é filho do build e espera os kernels: o segundo de CPU do kernel conta aqui
    assert (depois.ru_utime + depois.ru_stime) - (antes.ru_utime + antes.ru_stime) >= 1.0
    assert not os.path.exists(pasta)
    assert zigoto.VARIAVEL not in os.environ and "JUPYTER_PATH" not in os.environ
    linhas = [json.loads(ln) for ln in registro.read_text().splitlines()]
    kernels = [d for d in linhas if "ordem" in d]
    assert [d["ordem"] for d in kernels] == [1] and 1.0 <= kernels[0]["cpu"] < 30
    # o zigoto importou o kernel inteiro (PRECARGA) antes do fork: isso é CPU dele, não do kernel
    assert [d["zigoto"] > 0.1 for d in linhas if "zigoto" in d] == [True]


def test_pedido_estragado_nao_derruba_o_zigoto(zigoto_ligado):
    import socket

    zigoto_ligado.liga()
    caminho = os.path.join(os.environ[zigoto.VARIAVEL], "zigoto.sock")
    limite = time.monotonic() + 10
    while not os.path.exists(caminho) and time.monotonic() < limite:
        time.sleep(0.05)
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
        s.connect(caminho)
        s.sendall(b"isto nao e json")
        assert s.recv(100) == b""               # sem resposta: o lançador partiria do zero
    with _kernel() as (km, kc):                 # e o próximo kernel ainda nasce do zigoto
        _, pai = _roda(kc, "import os; print(os.getppid())")
        assert int(pai) != km.provisioner.process.pid


def test_fora_do_linux_nao_liga(monkeypatch):
    monkeypatch.setattr(zigoto.sys, "platform", "darwin")
    monkeypatch.delenv(zigoto.VARIAVEL, raising=False)
    monkeypatch.delenv("JUPYTER_PATH", raising=False)
    app = App()
    zigoto.ligar(app)
    assert app.ganchos == {} and "JUPYTER_PATH" not in os.environ


def test_livro_zigoto_0_desliga(monkeypatch):
    monkeypatch.setenv(zigoto.VARIAVEL, "0")
    monkeypatch.delenv("JUPYTER_PATH", raising=False)
    app = App()
    zigoto.ligar(app)
    assert app.ganchos == {} and "JUPYTER_PATH" not in os.environ


def test_o_build_liga_o_zigoto():
    from unittest import mock

    from livro_ext import livro

    app = mock.MagicMock()          # aceita todo add_directive, add_config_value... das peças
    livro.setup(app)
    assert mock.call("builder-inited", zigoto.ligar) in app.connect.call_args_list


def test_o_zigoto_sai_quando_o_build_morre(monkeypatch):
    """O stdin do zigoto é a vida do build: um build morto sem o build-finished não deixa o zigoto vivo."""
    import subprocess
    import sys

    monkeypatch.delenv(zigoto.VARIAVEL, raising=False)
    codigo = ("import os, time\nfrom livro_ext.execucao import zigoto\n"
              "class App:\n    def connect(self, *_): pass\n"
              "zigoto.ligar(App())\nprint(os.environ[zigoto.VARIAVEL], flush=True)\ntime.sleep(60)\n")
    build = subprocess.Popen([sys.executable, "-c", codigo], stdout=subprocess.PIPE, text=True)
    assert os.path.isdir(build.stdout.readline().strip())
    filho = int(Path(f"/proc/{build.pid}/task/{build.pid}/children").read_text().split()[0])
    build.kill()
    build.wait()

    def vivo():
        try:
            return Path(f"/proc/{filho}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    limite = time.monotonic() + 10
    while vivo() and time.monotonic() < limite:
        time.sleep(0.05)
    assert not vivo()
