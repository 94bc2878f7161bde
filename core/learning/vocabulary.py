"""Word lists for the explicit-fact rules: the people, pets, jobs and schools they know.

Closed lists on purpose: "my husband Marco is a chef" is a fact because "chef" is a job,
"my husband is a saint" is not; "we adopted a greyhound called Bolt" names a pet, "we
adopted a new policy called Zero" does not. A word missing from a list means a missed
fact, never a wrong one. English only, lower case; plurals are listed where they are used.
"""

from __future__ import annotations

RELATIONS: frozenset[str] = frozenset({
    "sister", "brother", "sibling", "twin", "mum", "mom", "mother", "mam", "mummy", "mommy",
    "dad", "father", "daddy", "wife", "husband", "partner", "spouse", "girlfriend",
    "boyfriend", "fiance", "fiancé", "fiancee", "fiancée", "son", "daughter", "kid", "child",
    "baby", "grandma", "granny", "gran", "nan", "nana", "grandmother", "grandpa", "grandad",
    "granddad", "grandfather", "grandson", "granddaughter", "aunt", "auntie", "aunty",
    "uncle", "cousin", "niece", "nephew", "stepson", "stepdaughter", "stepmom", "stepmum",
    "stepmother", "stepdad", "stepfather", "stepbrother", "stepsister", "half-sister",
    "half-brother", "mother-in-law", "father-in-law", "sister-in-law", "brother-in-law",
    "son-in-law", "daughter-in-law", "godson", "goddaughter", "godmother", "godfather",
    "best friend", "bestie",
})
"""People close to the user, singular."""

RELATIONS_PLURAL: frozenset[str] = frozenset({
    "sisters", "brothers", "siblings", "twins", "parents", "kids", "children", "sons",
    "daughters", "grandparents", "grandkids", "grandchildren", "grandsons",
    "granddaughters", "cousins", "nieces", "nephews", "in-laws", "stepkids",
    "stepchildren",
})

RELATION_MODIFIERS: frozenset[str] = frozenset({
    "older", "younger", "elder", "little", "big", "baby", "twin", "eldest", "oldest",
    "youngest", "middle",
})
"""Words that can stand before a relation and stay in its key: "older_sister_name"."""

PETS: frozenset[str] = frozenset({
    "dog", "cat", "puppy", "pup", "kitten", "kitty", "hamster", "rabbit", "bunny",
    "guinea pig", "parrot", "budgie", "tortoise", "turtle", "snake", "lizard", "gecko",
    "horse", "pony", "goldfish", "ferret", "rat", "chinchilla", "cockatiel", "canary",
    "hedgehog", "iguana", "axolotl", "bearded dragon",
    # dog breeds
    "greyhound", "lurcher", "whippet", "labrador", "lab", "retriever", "golden retriever",
    "poodle", "beagle", "terrier", "spaniel", "cocker spaniel", "springer spaniel",
    "collie", "border collie", "dachshund", "sausage dog", "pug", "bulldog",
    "french bulldog", "frenchie", "husky", "corgi", "chihuahua", "schnauzer",
    "german shepherd", "sheepdog", "boxer", "dalmatian", "rottweiler", "doberman",
    "pomeranian", "shih tzu", "cockapoo", "labradoodle", "cavapoo", "cavalier",
    "jack russell", "staffie", "staffy", "akita", "shiba", "shiba inu", "samoyed",
    "malamute", "great dane", "mastiff", "setter", "pointer", "weimaraner", "vizsla",
    "basset hound", "bloodhound", "maltese", "yorkie", "westie", "mutt",
    # cat breeds
    "siamese", "persian", "maine coon", "ragdoll", "bengal", "sphynx", "british shorthair",
    "tabby",
})
"""Pets, singular (breeds included: the key keeps the word the user used)."""

PETS_PLURAL: frozenset[str] = frozenset({
    "dogs", "cats", "puppies", "kittens", "hamsters", "rabbits", "bunnies", "guinea pigs",
    "parrots", "budgies", "tortoises", "turtles", "snakes", "lizards", "geckos", "horses",
    "ponies", "goldfish", "ferrets", "rats", "chinchillas", "hedgehogs", "greyhounds",
    "labradors",
})

NUMBERS: dict[str, int] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}

OCCUPATIONS: frozenset[str] = frozenset({
    "accountant", "actor", "actress", "administrator", "admin", "advisor", "adviser",
    "agent", "analyst", "anaesthetist", "anesthesiologist", "animator", "apprentice",
    "architect", "archivist", "artist", "assistant", "astronomer", "attorney", "auditor",
    "author", "baker", "banker", "barber", "barista", "barrister", "bartender",
    "beautician", "biologist", "blogger", "bookkeeper", "builder", "butcher", "buyer",
    "carer", "caregiver", "carpenter", "cashier", "ceo", "cfo", "cto", "coo", "chef",
    "chemist", "cleaner", "clerk", "coach", "composer", "consultant", "cook",
    "copywriter", "counsellor", "counselor", "courier", "curator", "cyclist", "dancer",
    "designer", "detective", "developer", "dietitian", "dietician", "director", "doctor",
    "driver", "economist", "editor", "educator", "electrician", "engineer",
    "entrepreneur", "estate agent", "farmer", "firefighter", "fisherman", "florist",
    "founder", "freelancer", "gardener", "geologist", "gp", "graphic designer",
    "hairdresser", "historian", "housekeeper", "illustrator", "inspector", "instructor",
    "intern", "interpreter", "investor", "janitor", "jeweller", "jeweler", "journalist",
    "judge", "labourer", "laborer", "landscaper", "lawyer", "lecturer", "librarian",
    "lifeguard", "linguist", "locksmith", "machinist", "manager", "marketer",
    "mathematician", "mechanic", "medic", "midwife", "miner", "musician", "nanny",
    "neurologist", "nurse", "nutritionist", "officer", "optician", "optometrist",
    "painter", "paralegal", "paramedic", "pastor", "pathologist", "pediatrician",
    "paediatrician", "pharmacist", "philosopher", "photographer", "physician",
    "physicist", "physio", "physiotherapist", "pilot", "plumber", "poet", "policeman",
    "policewoman", "politician", "porter", "postman", "postwoman", "practitioner",
    "priest", "principal", "producer", "professor", "programmer", "psychiatrist",
    "psychologist", "publisher", "rabbi", "radiographer", "radiologist", "receptionist",
    "recruiter", "registrar", "reporter", "researcher", "roofer", "sailor", "salesman",
    "saleswoman", "salesperson", "scientist", "sculptor", "secretary", "shopkeeper",
    "singer", "soldier", "solicitor", "statistician", "student", "stylist", "supervisor",
    "surgeon", "surveyor", "tailor", "teacher", "technician", "therapist", "trader",
    "trainer", "translator", "tutor", "vet", "veterinarian", "waiter", "waitress",
    "webmaster", "welder", "writer", "youtuber", "zoologist", "pupil", "postdoc",
    "dentist", "hygienist", "sonographer", "underwriter", "actuary", "planner",
    "strategist", "specialist", "operator", "coordinator", "co-founder", "cofounder",
    "owner", "partner", "associate", "executive",
})
"""Job titles by their last word: "senior software engineer" ends in "engineer"."""

SCHOOL_WORDS: frozenset[str] = frozenset({
    "school", "primary", "secondary", "academy", "college", "university", "uni",
    "high", "elementary", "nursery", "kindergarten", "preschool", "pre-school",
    "montessori", "institute", "polytechnic", "grammar", "conservatoire", "conservatory",
    "lycée", "lycee", "gymnasium", "sixth form", "seminary", "daycare", "creche", "crèche",
})
"""A place of study has one of these words in its name: "Riverside Primary"."""

DEGREES: frozenset[str] = frozenset({
    "phd", "ph.d", "doctorate", "dphil", "master's", "masters", "master", "msc", "ma",
    "mba", "mphil", "mres", "llm", "bachelor's", "bachelors", "bachelor", "bsc", "ba",
    "beng", "meng", "llb", "pgce", "md", "diploma", "degree", "postgrad", "apprenticeship",
})
"""What one is "doing a ... in" ("degree" names no degree: only the field is kept)."""

PROPERTY: frozenset[str] = frozenset({
    "flat", "house", "apartment", "home", "place", "cottage", "condo", "townhouse",
    "bungalow", "studio", "room", "farmhouse", "villa", "loft",
})
"""What one buys or rents to live in: "we bought a flat in Graça"."""

NOT_A_PLACE_EXTRA: frozenset[str] = frozenset({
    "squalor", "misery", "terror", "anxiety", "shame", "guilt", "ignorance", "bliss",
    "style", "hiding", "limbo", "silence", "solitude", "isolation", "pain", "agony",
    "happiness", "fantasy", "la la land", "cloud cuckoo land", "her head", "his head",
    "their heads", "her own world", "his own world", "their own world", "a world of her own",
    "a world of his own", "sweatpants", "pyjamas", "pajamas", "the gym", "the office",
    "the library", "the shadows", "my pocket", "a box", "constant fear",
})
"""Beyond ``explicit_facts.places._NOT_A_PLACE``: what people "live in" that is not a place."""

NOT_AN_EMPLOYER_EXTRA: frozenset[str] = frozenset({
    "the bottom", "the top", "the beginning", "the start", "the end", "the same time",
    "first", "once", "zero", "noon", "midnight", "dawn", "school", "uni", "university",
    "college", "work", "the gym", "gym", "a gym", "the weekend", "weekends", "last",
    "least", "most", "best", "all", "random", "scratch",
})

CLUB_WORDS: frozenset[str] = frozenset({
    "gym", "club", "choir", "group", "class", "call", "meeting", "team", "band", "league",
    "society", "church", "chat", "server", "course", "party", "waitlist", "waiting list",
    "protest", "strike", "army", "navy", "scouts", "guides", "mailing list", "newsletter",
    "twitter", "facebook", "instagram", "tiktok", "reddit", "discord", "slack", "linkedin",
    "strava", "duolingo", "whatsapp", "zoom", "forum", "community", "discussion",
    "conversation", "queue", "line", "fun", "game", "movement", "cult",
})
""""I joined the choir" is not a new employer."""

REPORTING_VERBS = (r"said|says|say|told\s+(?:me|us|him|her|them)|tells\s+(?:me|us)|"
                   r"thinks|thought|reckons|reckoned|believes|believed|claims|claimed|"
                   r"wrote|writes|asked|asks|replied|joked|jokes|goes|went|mentioned|added|"
                   r"insists|insisted|announced|texted|shouted|yelled|whispered|posted|"
                   r"was\s+like|is\s+like")
"""Verbs after which a clause is someone's words, not the user's statement."""
