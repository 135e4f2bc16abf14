# Cyrillic function words, not look-alikes of Latin letters, are in these lists.
# ruff: noqa: RUF001, RUF003
"""The commonest function words of the languages written in scripts with capitals: what prose
holds and names, terms and titles seldom do (memidx.notes.titlecase, memidx.notes.glossary,
a table's cells in memidx.notes.prose). Pure data; imports nothing of memidx."""

from __future__ import annotations

# Function words that close a whole sentence as well as a piece of one: a predicate, a negation
# or a question particle (Turkish `Henüz kayıt yok`, German `Datei existiert nicht`, Russian
# `Записей нет`). A UI string ending in one is whole: a Turkish catalog was refused for `yok`,
# a German one for `werden` (65% not English)
CLOSING_WORDS = frozenset(
    (
        *("yok", "var", "değil", "mi", "mı"),  # tr
        *("nicht", "niet", "pas", "inte", "ikke"),  # de nl fr sv da no
        *("werden", "worden"),  # de: a passive's verb (`Die Datei konnte nicht geladen werden`)
        *("нет", "немає", "không", "rồi", "ada", "belum", "sudah"),  # ru uk vi id ms
    )
)

# English's commonest function words: a phrase is prose and holds them, as labels of a word or
# three in front of another language's pieces (`- Build Server: bitte vor`) seldom do
ENGLISH_FUNCTION_WORDS = frozenset(
    (
        *("a", "an", "the", "i", "you", "he", "she", "it", "we", "they", "me", "us", "my"),
        *("your", "our", "this", "that", "there", "here", "is", "are", "am", "was", "were"),
        *("be", "do", "does", "did", "not", "no", "to", "of", "in", "on", "at", "for", "from"),
        *("with", "and", "or", "but", "how", "what", "where", "when", "why", "who", "which"),
        *("can", "could", "would", "should", "will", "may", "please", "much", "many"),
    )
)

# The commonest function words (articles, prepositions, conjunctions, pronouns, auxiliaries)
# of the languages written in cased scripts: a caseless script's words are never all capitals
_FUNCTION_WORDS = {
    "cs": "a v se na je že to s z do o k i by jsou jako ale pro po podle není jen také když "
    "nebo už ještě který která které ve ze za při",
    "da": "og i at det er en til på de med for ikke som af har den et der når så fra men "
    "kan skal vi du jeg også efter før eller ved om hvis",
    "de": "der die das und ist in zu den mit von ein eine es auf nicht sich im dem des für "
    "wird werden vor bei aus wir sie ich auch nur noch wenn dann oder aber so als wie "
    "beim zum zur am um über nach durch einen einem einer kein keine man kann muss "
    "hat haben sind war dass also",
    "es": "de la que el en y a los las se del un una por con no es para al lo su como",
    "fi": "ja on ei se että oli hän ovat kun tai mutta niin myös jos sen saa voi jo vaan "
    "kuin sekä ole tämä joka mitä",
    "fr": "de la le les et à l un une des du en est que qui pas au ne se sur pour dans par "
    "il ce avec d",
    "hu": "a az és hogy nem is egy van meg de ez csak már mint ha mert vagy kell még ki be "
    "el fel le után előtt minden",
    "id": "yang dan di ke dari ini itu untuk dengan tidak ada akan pada juga adalah dalam "
    "atau bisa harus jika kita kami saat sudah belum mana pun oleh",
    "it": "di e il la che a in un una per non è con del della i le lo si da al gli",
    "ms": "yang dan di ke dari ini itu untuk dengan tidak ada akan pada juga adalah dalam "
    "atau boleh perlu jika kita kami anda sudah belum telah oleh bagi kerana tetapi bahawa "
    "sila apabila supaya ia",
    "nl": "de het een en van in is dat op te niet met voor zijn er die aan om bij ook",
    "no": "og i det er en til på som at med for av ikke har de den et jeg du vi han hun seg "
    "men så om fra kan skal må vil når da eller etter før også bare her der hva hvis ved",
    "pl": "w i z na się do nie to że jest o a od po jak za co by przez są tak ten ta tego "
    "tym jego jej oraz lub ale czy już tylko gdy jeśli bez przy dla przed ze we więc",
    "pt": "de a o que e do da em um uma para com não os as no na por se dos das",
    "ro": "și de la în a că nu un o cu se pe din este ce mai sau",
    "ru": "и в не на что с по к а как это из у за от о то же все для но я мы он она они вы "
    "ты бы если есть так только уже при после перед или там где когда чтобы нет его "
    "их",
    "sv": "och i att det är en som på för med av den till inte har de ett om du vi jag han "
    "hon så men när eller kan ska måste innan efter där här också bara var vara",
    "tr": "ve bir bu için ile da de çok ne daha olarak gibi ama en her o şu kadar sonra "
    "önce var yok mi mı değil hiç ise veya göre ancak",
    "uk": "і в не на що з по до а як це та у за від й для але я ми він вона вони ви би якщо "
    "є так тільки вже при після перед або там де коли щоб немає його їх навіть тому",
    "vi": "của là và các những được có trong cho không một này để với khi đã từ cũng phải "
    "làm thì sẽ đến ra vào lại nếu mà người việc rồi hay còn nhưng vì bị",
}
# Languages the model tells apart unsurely, read by the words of all of theirs: Malay prose
# reads as Indonesian at 0.50 to 0.68, Norwegian as itself at 0.50 to 0.92, Danish at 0.77
KIN = (("id", "ms"), ("da", "no", "nb", "nn"))
KIN_SCORE = 0.45  # the names, read together, as one of them this surely: prose in Title Case
FUNCTION_WORDS = {lang: frozenset(words.split()) for lang, words in _FUNCTION_WORDS.items()} | {
    lang: frozenset(" ".join(_FUNCTION_WORDS.get(kin, "") for kin in kins).split())
    for kins in KIN
    for lang in kins
}
# A language without a list of its own (Catalan, Galician: `- Abans De Fer`) is judged by every
# list's words: with none, its prose in Title Case passed as names however it was cut
ANY_FUNCTION_WORD = frozenset(word for words in FUNCTION_WORDS.values() for word in words)
