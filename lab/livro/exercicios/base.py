"""O registro dos exercícios, a versão (livro ou sorteada) e o sorteio reprodutível."""
from livro.formato import num, vetor
from livro import brinquedo as b

EXERCICIOS = {}  # id -> Exercicio, na ordem em que as páginas os mostram
# As páginas com exercícios conferidos, na ordem do livro (o resumo da abertura).
PAGINAS = {"tokens": "Passo 1: tokens", "embeddings": "Passo 2: embeddings", "qkv": "Passo 3: Q, K, V",
           "mascaras": "Passo 4: máscaras", "bloco": "Passo 5: o bloco", "saida": "Passo 6: a saída",
           "proximo_token": "Passo 7: o próximo token", "por_que_bloco": "Por que o bloco é assim",
           "desde_2017": "Desde 2017", "escala": "Escala", "laboratorio": "Laboratório",
           "treino": "De onde vêm os pesos"}
TENTATIVAS = 80


class Degenerado(Exception):
    """Uma versão sorteada sem uma só resposta clara (empate, caso degenerado): sorteia de novo."""


class Erro:
    """Um erro típico: o nome, o valor que ele dá (calculado com o erro) e a dica."""

    def __init__(self, nome, valor, dica):
        self.nome, self.valor, self.dica = nome, valor, dica


class Versao:
    """Uma versão de um exercício. tipo: numero | prob | inteiro | vetor | token | escolha.
    dicas: HTML simples, calculado como o resto (o widget as mostra uma a uma, antes da resolução)."""

    def __init__(self, enunciado, resposta, resolucao, tipo="numero", casas=3, erros=(), opcoes=None,
                 rel=None, rotulo="Sua resposta", dicas=()):
        self.enunciado, self.resposta, self.resolucao = enunciado, resposta, resolucao
        # a escada de dicas, antes da resolução: 1º onde olhar; 2º o primeiro passo, com os números da versão
        self.dicas = list(dicas)
        self.tipo, self.casas, self.rel, self.opcoes, self.rotulo = tipo, casas, rel, opcoes, rotulo
        self.tol = 10.0 ** -casas if tipo in ("numero", "prob", "vetor") else 0
        self.erros = list(erros)

    def texto(self, valor):
        """Um valor no formato do livro (o gabarito, o valor de um erro)."""
        if self.tipo == "vetor":
            return vetor(valor, self.casas)
        if self.tipo == "token":
            return b.VOCAB[valor]
        if self.tipo == "escolha":
            return dict(self.opcoes)[valor]
        if self.tipo == "inteiro":
            from livro.formato import inteiro
            return inteiro(valor)
        return num(valor, self.casas)

    @property
    def resposta_txt(self):
        return self.texto(self.resposta)


class Exercicio:
    def __init__(self, id, pagina, titulo, gera, transferencia):
        self.id, self.pagina, self.titulo, self.gera, self.transferencia = id, pagina, titulo, gera, transferencia


def exercicio(id, pagina, titulo, transferencia=False):
    """Decorador: registra `gera(s)` como o exercício `id` da página."""
    def deco(gera):
        EXERCICIOS[id] = Exercicio(id, pagina, titulo, gera, transferencia)
        return gera
    return deco


def da_pagina(pagina):
    return [i for i, e in EXERCICIOS.items() if e.pagina == pagina]


class Sorteio:
    """Números pseudoaleatórios reprodutíveis (xorshift de 64 bits, sem `random`): a mesma
    semente dá a mesma versão no CPython, no Pyodide e em qualquer máquina."""

    def __init__(self, id, semente):
        h = 1469598103934665603
        for ch in f"{id}:{semente}":
            h = ((h ^ ord(ch)) * 1099511628211) % 2 ** 64
        self.x = h or 88172645463325252

    def _prox(self):
        x = self.x
        x ^= (x << 13) % 2 ** 64
        x ^= x >> 7
        x ^= (x << 17) % 2 ** 64
        self.x = x
        return x

    def inteiro(self, a, b_):
        """Um inteiro de a a b_, inclusive."""
        return a + self._prox() % (b_ - a + 1)

    def escolhe(self, seq):
        seq = list(seq)
        return seq[self.inteiro(0, len(seq) - 1)]

    def amostra(self, seq, k):
        seq, out = list(seq), []
        for _ in range(k):
            out.append(seq.pop(self.inteiro(0, len(seq) - 1)))
        return out


def _distintos(v):
    """Tira os erros que, nesta versão, dão a mesma resposta que o gabarito (ou que outro erro):
    um erro que não muda o número não se distingue, e não deve ser diagnosticado."""
    from livro.exercicios.confere import perto
    vistos = [v.resposta]
    fica = []
    for e in v.erros:
        if v.tipo in ("token", "escolha", "inteiro"):
            igual = any(e.valor == w for w in vistos)
        else:  # precisa estar a mais de duas tolerâncias de tudo o que já está na lista
            igual = any(perto(v, e.valor, w) or _perto2(v, e.valor, w) for w in vistos)
        if not igual:
            fica.append(e)
            vistos.append(e.valor)
    v.erros = fica
    # e só os que o leitor consegue digitar e o conferidor reconhece (uma "probabilidade" de 1,3
    # ou um valor 99 de "não se aplica" ficam de fora)
    from livro.exercicios.confere import conferir
    v.erros = [e for e in v.erros if conferir(v, v.texto(e.valor))[1] is e]
    return v


def _perto2(v, x, alvo):
    if isinstance(alvo, list):
        return all(_perto2(v, a, c) for a, c in zip(x, alvo))
    if v.rel:
        return abs(x - alvo) <= 2 * v.rel * abs(alvo)
    return abs(x - alvo) <= 2 * v.tol


def na_borda(v):
    """O gabarito cai na borda do arredondamento impresso (…5 na casa seguinte)?"""
    if v.tipo not in ("numero", "prob", "vetor") or v.rel:
        return False
    valores = v.resposta if v.tipo == "vetor" else [v.resposta]
    for x in valores:
        r = abs(x) * 10 ** v.casas
        if abs((r - int(r)) - 0.5) < 0.02:
            return True
    return False


_CACHE = {}


def versao(id, semente=None):
    """A versão do livro (semente None) ou a sorteada por `semente` (um inteiro)."""
    chave = (id, semente)
    if chave in _CACHE:
        return _CACHE[chave]
    ex = EXERCICIOS[id]
    if semente is None:
        v = _distintos(ex.gera(None))
    else:
        s = Sorteio(id, semente)
        livro = versao(id).enunciado
        for _ in range(TENTATIVAS):
            try:
                v = _distintos(ex.gera(s))
            except (Degenerado, ZeroDivisionError, ValueError):
                continue
            # ao menos um erro típico que se distingue, longe da borda do arredondamento, e
            # outros números de verdade (não a versão do livro de novo)
            if v.erros and not na_borda(v) and v.enunciado != livro:
                break
        else:
            v = _distintos(ex.gera(None))
    if len(_CACHE) > 400:
        _CACHE.clear()
    _CACHE[chave] = v
    return v


# ---------------------------------------------------------------------------
# Peças de texto dos enunciados (HTML simples, sem MathJax: o widget troca o texto no navegador)
# ---------------------------------------------------------------------------
_ESC = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"})


def esc(s):
    return str(s).translate(_ESC)


def sub(s):
    """x + sub(5) -> x₅."""
    return str(s).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def tk(i):
    """Um token do vocabulário, como código."""
    return f"<code>{esc(b.VOCAB[i])}</code>"


def ordinal(n):
    return f"{n}º"


LUGARES = [" muro", " telhado", " sofá", " chão"]


def _frases_com_sentido(s):
    """Uma frase do mundo do brinquedo que um leitor aceitaria (nunca "o chão telhado telhado")."""
    x = s.escolhe(LUGARES)
    return s.escolhe([f"o gato subiu no{x}", f"o gato subiu no{x} e", f"o gato subiu no{x} e no",
                      "o gato subiu", "o gato subiu e subiu"])


def frase(s, minimo=3, maximo=None):
    """Uma frase que o tokenizador do brinquedo cobre (às vezes com ponto final), com no máximo
    n_ctx tokens. s None: o prompt do livro."""
    if s is None:
        return b.PROMPT
    maximo = maximo or b.n_ctx
    for _ in range(40):
        texto = _frases_com_sentido(s)
        if not texto.endswith((" e", " no")) and s.inteiro(0, 2) == 0:
            texto += "."
        if minimo <= len(b.codificar(texto)) <= maximo:
            return texto
    raise Degenerado
