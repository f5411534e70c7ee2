"""Fim do build: põe no site o que o navegador precisa e não vai no git.

Roda como gancho `build-finished` do Sphinx (registrado em `widgets.py`), então um
`jupyter-book build .` simples já dá um site completo. Também roda à mão:
``python -m livro_ext.widgets.pos_build _build/html``; ``--manifesto`` só imprime as listas;
``--roda pasta`` só escreve numa pasta a roda do livro, o lock e a biblioteca padrão
compilada (para tests/js).

O que copia ou gera em `_static/`:

- `pyodide/`: o runtime do Python dos widgets (npm `pyodide`, Python 3.13), enxuto:
  - `pyodide.mjs` como vem;
  - `pyodide.asm.wasm` e `pyodide.asm.js` comprimidos com gzip e cortados em pedaços
    (`pyodide.asm.wasm.gz.N`): o worker guarda cada pedaço no Cache API do
    navegador, então uma recarga continua de onde parou, e nenhum servidor
    precisa saber o tipo `application/wasm` nem comprimir nada;
    os arquivos inteiros ficam ao lado, para navegadores sem `DecompressionStream`;
  - a roda (wheel) do livro: a parte do pacote que os widgets importam, construída pelo
    setuptools (`pip wheel` sobre um pyproject mínimo), compilada para bytecode pelo
    `pyodide py-compile` do pyodide-build, refeita pelo `wheel pack` (o RECORD dos .pyc) e registrada num
    `pyodide-lock.json` próprio pelo `pyodide lockfile add-wheels` (o lock só tem a roda
    do livro; o worker a instala com `loadPackage`, como qualquer pacote do Pyodide);
  - a biblioteca padrão só com os módulos que os widgets usam (a lista
    `STDLIB_WIDGETS.txt`, ao lado deste arquivo; `tests/js/pyodide.test.mjs` roda
    todos os casos dos widgets contra este zip e confere que a lista basta), também
    compilada pelo `pyodide py-compile`, em `python_stdlib.zip.gz` (gzip de um zip sem
    compressão) e `python_stdlib.zip`;
  - `manifesto.json`: a única lista do que o navegador busca (nome, bytes, hash),
    lida pelo worker, pelos testes e pelo benchmark.

O pyodide-build roda num ambiente à parte, `.venv-pyodide` (Python 3.13, o mesmo do
Pyodide: o bytecode só vale para a versão que o compilou; `make setup` o cria a partir
de `requirements-pyodide.txt`).
"""
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from ..execucao import guardado

from . import navegador, offline

RAIZ = Path(__file__).resolve().parents[2]
AQUI = Path(__file__).resolve().parent
PYODIDE = RAIZ / "node_modules" / "pyodide"
PYODIDE_CLI = RAIZ / ".venv-pyodide" / "bin" / "pyodide"

# Os módulos que o worker importa (o resto da roda sai dos imports: livro_ext.widgets.navegador).
MODULO_API = "livro.widgets.api"
MODULO_FORMATO = "livro.formato"
PACOTE = "livro"
VERSAO = "1.0.0"
PEDACO = 512 * 1024  # bytes comprimidos por pedaço do .wasm
DATA = (2020, 1, 1, 0, 0, 0)  # a data de todo arquivo que escrevemos em zip (build reprodutível)
EPOCA = 1577836800           # a mesma data, em segundos (SOURCE_DATE_EPOCH da roda e do py-compile)


def arquivos_da_roda():
    """(arquivo no disco, nome dentro da roda) de cada arquivo que o navegador usa: os
    derivados dos imports de livro.widgets (livro_ext.widgets.navegador), como "livro/widgets/api.py"."""
    return [(navegador.BASE / nome, nome) for nome in navegador.modulos_navegador()]


def stdlib_widgets():
    """Os arquivos da biblioteca padrão que os widgets usam (um por linha, # comenta)."""
    linhas = (AQUI / "STDLIB_WIDGETS.txt").read_text(encoding="utf-8").splitlines()
    return [s.strip() for s in linhas if s.strip() and not s.lstrip().startswith("#")]


def _zip(destino: Path, arquivos) -> Path:
    """Escreve um zip sem compressão, com datas fixas; `arquivos`: pares (nome, bytes)."""
    with zipfile.ZipFile(destino, "w") as out:
        for nome, dados in arquivos:
            out.writestr(zipfile.ZipInfo(nome, date_time=DATA), dados)
    return destino


def stdlib_enxuta(destino: Path, origem: Path = PYODIDE / "python_stdlib.zip") -> Path:
    """Escreve o zip (sem compressão) da biblioteca padrão só com os arquivos de `stdlib_widgets()`.

    Sem compressão: o arquivo inteiro vai depois por gzip, que comprime melhor o conjunto
    do que o deflate comprime cada entrada."""
    quero = stdlib_widgets()
    with zipfile.ZipFile(origem) as z:
        tem = set(z.namelist())
        faltam = [n for n in quero if n not in tem]
        if faltam:
            raise SystemExit(f"STDLIB_WIDGETS.txt cita arquivos que o Pyodide não tem: {faltam}")
        return _zip(destino, [(n, z.read(n)) for n in sorted(quero)])


def _datas_fixas(caminho: Path) -> None:
    """Regrava o zip sem compressão `caminho` (o py-compile põe a hora do build em cada arquivo)
    com a data DATA e o mesmo conteúdo."""
    with zipfile.ZipFile(caminho) as z:
        arquivos = [(n, z.read(n)) for n in z.namelist()]
    _zip(caminho, arquivos)


def escreve_roda(pasta: Path) -> Path:
    """A roda (wheel) pura, py3-none-any, com o código-fonte do que o navegador roda: o setuptools
    (`pip wheel`) sobre um pyproject mínimo desse subconjunto, em `pasta` (as fontes em `pasta/fonte`).
    As datas dos arquivos saem de SOURCE_DATE_EPOCH."""
    fonte = pasta / "fonte"
    for origem, nome in arquivos_da_roda():
        (fonte / nome).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(origem, fonte / nome)
    nomes = [nome for _, nome in arquivos_da_roda()]
    pacotes = sorted(n.removesuffix("/__init__.py").replace("/", ".") for n in nomes if n.endswith("/__init__.py"))
    dados = {}
    for n in nomes:
        if not n.endswith(".py"):
            dados.setdefault(n.rpartition("/")[0].replace("/", "."), []).append(n.rpartition("/")[2])
    (fonte / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        f'[project]\nname = "{PACOTE}"\nversion = "{VERSAO}"\n'
        f'[tool.setuptools]\npackages = {json.dumps(pacotes)}\n[tool.setuptools.package-data]\n'
        + "".join(f"{json.dumps(p)} = {json.dumps(sorted(d))}\n" for p, d in sorted(dados.items())), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index",
                        "--no-build-isolation", "--wheel-dir", pasta, fonte], capture_output=True, text=True,
                       env=_ambiente())
    if r.returncode:
        raise SystemExit(f"pip wheel falhou na roda do livro:\n{r.stdout}{r.stderr}")
    return next(pasta.glob("*.whl"))


def _ambiente() -> dict:
    """SOURCE_DATE_EPOCH: o setuptools e o `wheel pack` datam com ela cada arquivo da roda, e o
    py_compile do CPython escreve o hash da fonte no cabeçalho de cada .pyc, em vez da hora do
    arquivo (que é a hora do build): o mesmo código, os mesmos bytes."""
    return dict(os.environ, SOURCE_DATE_EPOCH=str(EPOCA))


def _cli(*comandos):
    """Roda comandos das CLIs `pyodide` (pyodide-build) e `wheel` de .venv-pyodide num processo
    só: cada partida custa ~0,3 s de CPU. Cada comando é ("pyodide" ou "wheel", argumentos...);
    um que falha para tudo, com a mensagem dele."""
    if not PYODIDE_CLI.exists():
        raise SystemExit(f"Falta o pyodide-build ({PYODIDE_CLI.relative_to(RAIZ)}): rode `make setup` "
                         "(precisa de Python 3.13; o `make book` já faz isso).")
    roteiro = ("import json, sys\n"
               "from pyodide_cli.__main__ import main as pyodide\n"
               "from wheel._commands import main as wheel\n"
               "for prog, *args in json.loads(sys.argv[1]):\n"
               "    sys.argv = [prog, *args]\n"
               "    try:\n"
               "        r = {'pyodide': pyodide, 'wheel': wheel}[prog]()\n"
               "    except SystemExit as e:\n"
               "        r = e.code\n"
               "    if r:\n"
               "        sys.exit(f'comando: {prog} {\" \".join(args)}')\n")
    with tempfile.TemporaryDirectory() as tmp:   # um arquivo: o pyodide-build lê __main__.__file__
        script = Path(tmp) / "pyodide_varios.py"
        script.write_text(roteiro, encoding="utf-8")
        r = subprocess.run([str(PYODIDE_CLI.parent / "python"), str(script),
                            json.dumps([[str(a) for a in c] for c in comandos])],
                           capture_output=True, text=True, env=_ambiente())
    if r.returncode:
        raise SystemExit(f"a CLI do pyodide-build falhou:\n{r.stdout}{r.stderr}")


def _python_do_pyodide() -> str:
    return json.loads((PYODIDE / "pyodide-lock.json").read_text(encoding="utf-8"))["info"]["python"]


def roda_e_lock(pasta: Path) -> dict:
    """Escreve em `pasta` a roda do livro compilada, o pyodide-lock.json com ela e a
    biblioteca padrão enxuta compilada (zip sem compressão). A roda sai do setuptools
    (`escreve_roda`), o pyodide-build a compila (`py-compile`) e a registra (`lockfile add-wheels`)."""
    pasta = Path(pasta)
    pasta.mkdir(parents=True, exist_ok=True)
    alvo = ".".join(_python_do_pyodide().split(".")[:2])
    r = subprocess.run([str(PYODIDE_CLI.parent / "python"), "-c",
                        "import sys; print('%d.%d' % sys.version_info[:2])"], capture_output=True, text=True)
    if PYODIDE_CLI.exists() and r.stdout.strip() != alvo:
        raise SystemExit(f".venv-pyodide tem Python {r.stdout.strip()}, mas o Pyodide roda {alvo}: o bytecode "
                         "não serviria. Apague .venv-pyodide e rode `make setup`.")
    info = json.loads((PYODIDE / "pyodide-lock.json").read_text(encoding="utf-8"))["info"]
    base = json.dumps({"info": info, "packages": {}}).encode()
    fontes = [(nome, origem.read_bytes()) for origem, nome in arquivos_da_roda()]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        zip_ = stdlib_enxuta(tmp / "python_stdlib.zip")
        # A saída guardada pelo hash da entrada (guardado.py): as mesmas fontes, a mesma biblioteca
        # padrão e os mesmos construtores dão os mesmos bytes; construir custa ~3 s de CPU.
        k = guardado.chave("pyodide-build", json.dumps([n for n, _ in fontes]), *(d for _, d in fontes), base,
                           zip_.read_bytes(), (RAIZ / "requirements-pyodide.txt").read_bytes(),
                           (RAIZ / "requirements.txt").read_bytes(), alvo, Path(__file__).read_bytes(),
                           Path(guardado.__file__).read_bytes())
        partes = {n: guardado.ler("pyodide", f"{k}.{n}") for n in ("roda", "stdlib", "lock")}
        if None in partes.values():
            partes = _compila(tmp, base, zip_)
            for n, dados in partes.items():   # o lock por último: com ele, o resto está lá
                guardado.guardar("pyodide", f"{k}.{n}", dados)
    nome_roda = json.loads(partes["lock"])["packages"][PACOTE]["file_name"]
    feitos = {"roda": pasta / nome_roda, "lock": pasta / "pyodide-lock.json", "stdlib": pasta / "python_stdlib.zip"}
    for n, arq in feitos.items():
        arq.write_bytes(partes[n])
    return feitos


def _compila(tmp: Path, base: bytes, zip_: Path) -> dict:
    """Em `tmp`: a roda pura do setuptools, registrada pelo `lockfile add-wheels` num lock com só
    ela (sobre `base`) e compilada pelo `py-compile`, que a renomeia no lock; a biblioteca padrão
    `zip_` compilada no lugar. -> {"roda", "stdlib", "lock": bytes}."""
    pasta = tmp / "roda"
    pura = escreve_roda(pasta)
    (tmp / "base.json").write_bytes(base)
    _cli(["pyodide", "lockfile", "add-wheels", "--input", tmp / "base.json", "--output", pasta / "pyodide-lock.json",
          "--base-path", pasta, pura],
         ["pyodide", "py-compile", "--silent", "--no-keep", "--compression-level", 9, pasta],
         ["pyodide", "py-compile", "--silent", "--no-keep", "--compression-level", 0, zip_])
    # O py-compile troca os .py por .pyc e põe no nome a tag do Python que compilou (cp313), mas
    # deixa o WHEEL com py3-none-any, o RECORD com os .py e a hora do build em cada arquivo: o
    # `wheel pack` refaz a roda do que está nela, com a tag do nome (o RECORD dos .pyc, as datas de
    # SOURCE_DATE_EPOCH, as permissões dos arquivos abertos), e o lock recebe o sha256 dela.
    lock = json.loads((pasta / "pyodide-lock.json").read_text(encoding="utf-8"))
    roda = pasta / lock["packages"][PACOTE]["file_name"]
    aberta = tmp / "aberta" / f"{PACOTE}-{VERSAO}"
    with zipfile.ZipFile(roda) as z:
        z.extractall(aberta)
    for arq in aberta.rglob("*"):
        arq.chmod(0o755 if arq.is_dir() else 0o644)
    wheel = aberta / f"{PACOTE}-{VERSAO}.dist-info" / "WHEEL"
    tag = roda.name.removesuffix(".whl").split("-", 2)[2]
    texto, n = re.subn(r"^Tag: .*$", f"Tag: {tag}", wheel.read_text(encoding="utf-8"), flags=re.M)
    assert n == 1, f"o WHEEL da roda tem {n} tags"
    wheel.write_text(texto, encoding="utf-8")
    roda.unlink()
    _cli(["wheel", "pack", aberta, "--dest-dir", pasta])
    lock["packages"][PACOTE]["sha256"] = hashlib.sha256(roda.read_bytes()).hexdigest()
    _datas_fixas(zip_)
    return {"roda": roda.read_bytes(), "stdlib": zip_.read_bytes(), "lock": json.dumps(lock).encode()}


def _hash(dados: bytes) -> str:
    return hashlib.sha256(dados).hexdigest()[:12]


def _item(caminho: Path, static: Path) -> dict:
    dados = caminho.read_bytes()
    return {"url": caminho.relative_to(static).as_posix(), "bytes": len(dados), "hash": _hash(dados)}


def _gzip_guardado(dados: bytes) -> bytes:
    """gzip -9 de `dados` (mtime=0: sempre os mesmos bytes), guardado pelo hash da entrada
    (guardado.py): o .wasm e a biblioteca padrão compilada quase nunca mudam entre builds, e
    comprimi-los custa segundos de CPU."""
    k = guardado.chave("gzip -9, mtime 0", dados)
    gz = guardado.ler("gzip", k)
    if gz is None:
        gz = gzip.compress(dados, compresslevel=9, mtime=0)
        guardado.guardar("gzip", k, gz)
    return gz


def copia(saida: Path) -> dict:
    saida = Path(saida)
    static = saida / "_static"
    # O MathJax do navegador (npm `mathjax`, 24 MB) não vai mais para o site: as fórmulas saem
    # desenhadas do build (matematica.py), e nenhuma página o carrega.

    destino = static / "pyodide"
    if destino.exists():
        shutil.rmtree(destino)
    destino.mkdir(parents=True)
    for nome in ["pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]:
        if not (PYODIDE / nome).exists():
            raise SystemExit(f"Falta node_modules/pyodide/{nome}: rode `npm ci`.")
    for nome in ["pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm"]:
        shutil.copy2(PYODIDE / nome, destino / nome)

    def em_pedacos(nome):
        gz = _gzip_guardado((PYODIDE / nome).read_bytes())
        pedacos = []
        for n, i in enumerate(range(0, len(gz), PEDACO)):
            p = destino / f"{nome}.gz.{n}"
            p.write_bytes(gz[i:i + PEDACO])
            pedacos.append(_item(p, static))
        return pedacos

    wasm = (PYODIDE / "pyodide.asm.wasm").read_bytes()
    pedacos = em_pedacos("pyodide.asm.wasm")
    pedacos_asm = em_pedacos("pyodide.asm.js")
    feitos = roda_e_lock(destino)
    stdlib = feitos["stdlib"]
    (destino / "python_stdlib.zip.gz").write_bytes(_gzip_guardado(stdlib.read_bytes()))
    lock = json.loads(feitos["lock"].read_text(encoding="utf-8"))

    versao = json.loads((PYODIDE / "package.json").read_text(encoding="utf-8"))["version"]
    manifesto = {
        "pyodide": versao,
        "python": lock["info"]["python"],
        # o .wasm: pedaços do gzip (em ordem) e, para quem não descomprime, o arquivo inteiro
        "wasm": {"pedacos": pedacos, "bytes": len(wasm), "hash": _hash(wasm),
                 "inteiro": _item(destino / "pyodide.asm.wasm", static)},
        "asm": {"pedacos": pedacos_asm, "inteiro": _item(destino / "pyodide.asm.js", static)},
        "mjs": _item(destino / "pyodide.mjs", static),
        # a biblioteca padrão enxuta, em bytecode: gzip de um zip sem compressão e, sem gzip, o zip
        "stdlib": {"gz": _item(destino / "python_stdlib.zip.gz", static), "inteiro": _item(stdlib, static)},
        # o lock do pyodide-build e a roda do livro que ele registra (o worker a instala com loadPackage)
        "lock": _item(feitos["lock"], static),
        "roda": dict(_item(feitos["roda"], static), pacote=PACOTE),
        "modulos": {"api": MODULO_API, "formato": MODULO_FORMATO},
    }
    todos = [*pedacos, *pedacos_asm, manifesto["mjs"], manifesto["stdlib"]["gz"], manifesto["lock"],
             manifesto["roda"]]
    # A versão nomeia o worker compartilhado entre as páginas (livro_ext/widgets/partida.js): um site
    # novo, ou um worker.mjs novo, nunca conversa com o Python de um worker antigo ainda vivo.
    # Os imports do worker levam o hash de cada módulo (offline.versiona_modulos): um módulo novo
    # muda o worker.mjs, e com ele a versão.
    worker = static / "widgets" / "worker.mjs"
    modulos = offline.versiona_modulos(worker.parent) if worker.exists() else {}
    codigo_worker = (worker if worker.exists() else RAIZ / "book" / "_static" / "widgets" / "worker.mjs").read_bytes()
    manifesto["versao"] = _hash("".join(i["hash"] for i in todos).encode() + codigo_worker)
    manifesto["bytes_antes_da_resposta"] = sum(i["bytes"] for i in todos)
    (destino / "manifesto.json").write_text(json.dumps(manifesto, indent=1, ensure_ascii=False), encoding="utf-8")
    (saida / ".nojekyll").write_text("")
    offline.escreve(saida, manifesto, modulos)  # o service worker (offline.js), com esta versão
    return manifesto


def ao_fim_do_build(app, excecao):
    """Gancho `build-finished` do Sphinx: só no HTML e só se o build deu certo.

    Sem node_modules ou sem .venv-pyodide (uma cópia do livro só para ver as páginas), avisa
    e segue: o site sai sem widgets vivos, e o worker diz isso ao leitor. No `make book`, o
    aviso vira erro (-W).
    """
    if excecao is None and app.builder.format == "html":
        try:
            copia(Path(app.outdir))
        except SystemExit as e:
            from sphinx.util import logging
            logging.getLogger(__name__).warning(f"runtime do navegador não copiado: {e}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--manifesto"]:
        print(json.dumps({"lab": [n for _, n in arquivos_da_roda()], "stdlib": stdlib_widgets(),
                          "pacote": PACOTE, "modulos": {"api": MODULO_API, "formato": MODULO_FORMATO}}))
    elif sys.argv[1:2] == ["--roda"]:  # só a roda, o lock e a biblioteca padrão (para tests/js)
        print(json.dumps({k: str(v) for k, v in roda_e_lock(Path(sys.argv[2])).items()}))
    else:
        m = copia(Path(sys.argv[1]))
        print("Runtime do navegador copiado para", sys.argv[1], f"(versão {m['versao']})")
