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
  - a roda (wheel) do livro: a parte do pacote que os widgets importam, compilada para
    bytecode pelo `pyodide py-compile` do pyodide-build e registrada num
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
import shutil
import subprocess
import sys
import tempfile
import zipfile
from base64 import urlsafe_b64encode
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
EPOCA = 1577836800           # a mesma data, em segundos (SOURCE_DATE_EPOCH do py-compile)


def arquivos_da_roda():
    """(arquivo no disco, nome dentro da roda) de cada arquivo que o navegador usa: os
    derivados dos imports de livro.widgets (livro_ext.widgets.navegador), como "livro/widgets/api.py"."""
    return [(navegador.BASE / nome, nome) for nome in navegador.modulos_navegador()]


def stdlib_widgets():
    """Os arquivos da biblioteca padrão que os widgets usam (um por linha, # comenta)."""
    linhas = (AQUI / "STDLIB_WIDGETS.txt").read_text(encoding="utf-8").splitlines()
    return [s.strip() for s in linhas if s.strip() and not s.lstrip().startswith("#")]


def _zip(destino: Path, arquivos, modo=zipfile.ZIP_STORED) -> Path:
    """Escreve um zip com datas fixas; `arquivos`: pares (nome, bytes)."""
    with zipfile.ZipFile(destino, "w") as out:
        for nome, dados in arquivos:
            info = zipfile.ZipInfo(nome, date_time=DATA)
            info.compress_type = modo
            out.writestr(info, dados, compresslevel=9 if modo == zipfile.ZIP_DEFLATED else None)
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


def _datas_fixas(caminho: Path) -> str:
    """Regrava o zip `caminho` (um do py-compile, que põe a hora do build em cada arquivo) com a
    data DATA, o mesmo conteúdo e a mesma compressão; devolve o sha256 novo."""
    with zipfile.ZipFile(caminho) as z:
        modos = {i.compress_type for i in z.infolist()}
        assert len(modos) == 1, f"{caminho.name}: arquivos com compressões diferentes"
        arquivos = [(n, z.read(n)) for n in z.namelist()]
    _zip(caminho, arquivos, modos.pop())
    return hashlib.sha256(caminho.read_bytes()).hexdigest()


def _b64(dados: bytes) -> str:
    return urlsafe_b64encode(hashlib.sha256(dados).digest()).rstrip(b"=").decode()


def escreve_roda(pasta: Path) -> Path:
    """A roda (wheel, py3-none-any) com o código-fonte da parte do livro que o navegador roda."""
    di = f"{PACOTE}-{VERSAO}.dist-info"
    arquivos = [(nome, origem.read_bytes()) for origem, nome in arquivos_da_roda()]
    topo = sorted({nome.split("/")[0].removesuffix(".py") for _, nome in arquivos_da_roda()})
    arquivos += [
        (f"{di}/METADATA", f"Metadata-Version: 2.1\nName: {PACOTE}\nVersion: {VERSAO}\n".encode()),
        (f"{di}/WHEEL", b"Wheel-Version: 1.0\nGenerator: livro_ext/widgets/pos_build.py\n"
                        b"Root-Is-Purelib: true\nTag: py3-none-any\n"),
        (f"{di}/top_level.txt", "".join(t + "\n" for t in topo).encode()),
    ]
    record = "".join(f"{n},sha256={_b64(d)},{len(d)}\n" for n, d in arquivos) + f"{di}/RECORD,,\n"
    arquivos.append((f"{di}/RECORD", record.encode()))
    return _zip(pasta / f"{PACOTE}-{VERSAO}-py3-none-any.whl", arquivos, zipfile.ZIP_DEFLATED)


def _pyodide(*comandos):
    """Roda comandos da CLI do pyodide-build (de .venv-pyodide) num processo só: cada partida
    da CLI custa ~0,3 s de CPU. Cada comando é a lista de argumentos de um `pyodide ...`;
    um que falha para tudo, com a mensagem dele."""
    if not PYODIDE_CLI.exists():
        raise SystemExit(f"Falta o pyodide-build ({PYODIDE_CLI.relative_to(RAIZ)}): rode `make setup` "
                         "(precisa de Python 3.13; o `make book` já faz isso).")
    comandos = [[str(a) for a in c] for c in comandos]
    roteiro = ("import json, sys\n"
               "from pyodide_cli.__main__ import main\n"
               "for args in json.loads(sys.argv[1]):\n"
               "    sys.argv = ['pyodide', *args]\n"
               "    try:\n"
               "        main()\n"
               "    except SystemExit as e:\n"
               "        if e.code:\n"
               "            print('comando:', ' '.join(args), file=sys.stderr)\n"
               "            raise\n")
    # SOURCE_DATE_EPOCH: o py_compile do CPython escreve então o hash da fonte no cabeçalho de
    # cada .pyc, em vez da hora do arquivo (que é a hora do build): o mesmo código, os mesmos bytes.
    amb = dict(os.environ, SOURCE_DATE_EPOCH=str(EPOCA))
    with tempfile.TemporaryDirectory() as tmp:   # um arquivo: o pyodide-build lê __main__.__file__
        script = Path(tmp) / "pyodide_varios.py"
        script.write_text(roteiro, encoding="utf-8")
        r = subprocess.run([str(PYODIDE_CLI.parent / "python"), str(script), json.dumps(comandos)],
                           capture_output=True, text=True, env=amb)
    if r.returncode:
        raise SystemExit(f"a CLI do pyodide-build falhou:\n{r.stdout}{r.stderr}")


def _python_do_pyodide() -> str:
    return json.loads((PYODIDE / "pyodide-lock.json").read_text(encoding="utf-8"))["info"]["python"]


def roda_e_lock(pasta: Path) -> dict:
    """Escreve em `pasta` a roda do livro compilada, o pyodide-lock.json com ela e a
    biblioteca padrão enxuta compilada (zip sem compressão). Tudo pelo pyodide-build:
    `lockfile add-wheels` registra a roda; `py-compile` compila a roda e reescreve o lock
    (nome e sha256 novos) e compila a biblioteca padrão."""
    pasta = Path(pasta)
    pasta.mkdir(parents=True, exist_ok=True)
    alvo = ".".join(_python_do_pyodide().split(".")[:2])
    r = subprocess.run([str(PYODIDE_CLI.parent / "python"), "-c",
                        "import sys; print('%d.%d' % sys.version_info[:2])"], capture_output=True, text=True)
    if PYODIDE_CLI.exists() and r.stdout.strip() != alvo:
        raise SystemExit(f".venv-pyodide tem Python {r.stdout.strip()}, mas o Pyodide roda {alvo}: o bytecode "
                         "não serviria. Apague .venv-pyodide e rode `make setup`.")
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as tmp_std:
        tmp = Path(tmp)
        roda = escreve_roda(tmp)
        info = json.loads((PYODIDE / "pyodide-lock.json").read_text(encoding="utf-8"))["info"]
        (tmp / "base.json").write_text(json.dumps({"info": info, "packages": {}}), encoding="utf-8")
        zip_ = stdlib_enxuta(Path(tmp_std) / "python_stdlib.zip")
        # A saída do pyodide-build guardada pelo hash da entrada (guardado.py): a mesma roda, a mesma
        # biblioteca padrão e o mesmo pyodide-build dão os mesmos bytes; a partida dele custa ~1,3 s de CPU.
        k = guardado.chave("pyodide-build", roda.read_bytes(), (tmp / "base.json").read_bytes(), zip_.read_bytes(),
                           (RAIZ / "requirements-pyodide.txt").read_bytes(), alvo, Path(__file__).read_bytes(),
                           Path(guardado.__file__).read_bytes())
        partes = {n: guardado.ler("pyodide", f"{k}.{n}") for n in ("lock", "roda", "stdlib")}
        if all(v is not None for v in partes.values()):
            nome_roda = json.loads(partes["lock"])["packages"][PACOTE]["file_name"]
            for n, nome in (("roda", nome_roda), ("lock", "pyodide-lock.json"), ("stdlib", "python_stdlib.zip")):
                (tmp / nome).write_bytes(partes[n])
            zip_ = tmp / "python_stdlib.zip"
        else:
            nome_roda = _compila(tmp, roda, zip_, k)
        shutil.copy2(tmp / nome_roda, pasta / nome_roda)
        shutil.copy2(tmp / "pyodide-lock.json", pasta / "pyodide-lock.json")
        shutil.copy2(zip_, pasta / "python_stdlib.zip")
    return {"roda": pasta / nome_roda, "lock": pasta / "pyodide-lock.json", "stdlib": pasta / "python_stdlib.zip"}


def _compila(tmp: Path, roda: Path, zip_: Path, k: str) -> str:
    """O pyodide-build em `tmp`: registra a roda num lock, compila a roda e a biblioteca padrão
    `zip_` (no lugar), fixa as datas e guarda as três saídas com a chave `k`; devolve o nome da roda."""
    _pyodide(["lockfile", "add-wheels", "--input", tmp / "base.json", "--output", tmp / "pyodide-lock.json",
              "--base-path", tmp, roda],
             ["py-compile", "--silent", "--no-keep", "--compression-level", 9, tmp],
             ["py-compile", "--silent", "--no-keep", "--compression-level", 0, zip_])
    # Build reprodutível: o mesmo código dá a mesma roda, o mesmo lock e a mesma biblioteca
    # padrão (então a mesma versão do site, e o leitor não baixa nada de novo à toa).
    texto_lock = (tmp / "pyodide-lock.json").read_text(encoding="utf-8")
    lock = json.loads(texto_lock)
    nome_roda = lock["packages"][PACOTE]["file_name"]
    sha_antes = lock["packages"][PACOTE]["sha256"]
    sha = _datas_fixas(tmp / nome_roda)
    assert texto_lock.count(sha_antes) == 1, "o sha256 da roda aparece mais de uma vez no lock"
    (tmp / "pyodide-lock.json").write_text(texto_lock.replace(sha_antes, sha), encoding="utf-8")
    _datas_fixas(zip_)
    for n, arq in (("roda", tmp / nome_roda), ("stdlib", zip_), ("lock", tmp / "pyodide-lock.json")):
        guardado.guardar("pyodide", f"{k}.{n}", arq.read_bytes())   # o lock por último: com ele, o resto está lá
    return nome_roda


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
