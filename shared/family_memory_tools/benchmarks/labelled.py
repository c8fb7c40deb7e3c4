"""A small labelled retrieval set: a family's memories and messages whose answer
is one of them. Many messages share no word with their answer (the seed's
"dentist" finds "orthodontist"); some are misspelled."""

from __future__ import annotations

MEMORIES: dict[str, tuple[str, str, str]] = {
    # key: (about, summary, when_to_use)
    "ortho": (
        "Maya's orthodontist",
        "Maya sees Dr. Patel, her orthodontist, every six weeks for her braces.",
        "Booking or moving Maya's braces check-ups",
    ),
    "pediatrician": (
        "Leo's pediatrician",
        "Leo's pediatrician is Dr. Greene at Sunnyside Clinic.",
        "Leo is unwell or needs a check-up",
    ),
    "vet": (
        "Biscuit's vet",
        "Biscuit the beagle goes to Dr. Kim at Maple Animal Hospital.",
        "The dog is sick or due for shots",
    ),
    "coach": (
        "Soccer coach",
        "Coach Alvarez runs Maya's Saturday soccer practice at Lincoln Park.",
        "Soccer schedule or messages to the coach",
    ),
    "pharmacy": (
        "Pharmacy",
        "Prescriptions are picked up at the Walgreens on 5th Street.",
        "Refills and prescriptions",
    ),
    "allergy": (
        "Leo's allergy",
        "Leo is allergic to peanuts; keep them out of his lunches and snacks.",
        "Food, recipes, restaurants, school lunches",
    ),
    "vegetarian": (
        "Lucía's diet",
        "Lucía is vegetarian and does not eat fish either.",
        "Planning meals or choosing restaurants",
    ),
    "piano": (
        "Piano lessons",
        "Leo has piano lessons with Ms. Okonkwo on Wednesdays at 4 pm.",
        "Weekday afternoon plans",
    ),
    "car": (
        "Family car",
        "The family car is a blue Subaru Outback, due for service in March.",
        "Car maintenance, parking, road trips",
    ),
    "grandma": (
        "Grandma Rosa",
        "Grandma Rosa lives in Tucson and visits every Thanksgiving.",
        "Holiday plans and family visits",
    ),
    "bins": ("Recycling", "Recycling bins go out on Tuesday night.", "Chores and reminders"),
    "bedtime": ("Bedtime", "Lights out for the kids is 8:30 on school nights.", "Evening plans on weekdays"),
    "soda": ("Drinks rule", "No fizzy drinks for the kids on weekdays.", "Groceries and treats"),
    "camp": ("Summer camp", "Last spring Maya went to Camp Kinnikinnick by the lake.", "Summer plans"),
    "wifi": ("Wi-Fi", "The guest Wi-Fi network is called RiveraGuest.", "Visitors asking to get online"),
    "school": ("Maya's school", "Maya is in fourth grade at Roosevelt Elementary.", "School events and forms"),
    "swim": ("Swimming", "Leo takes swimming lessons at the YMCA pool on Sunday mornings.", "Weekend plans"),
    "dentist_marco": ("Marco's dentist", "Marco's dentist is Dr. Haddad downtown.", "Marco's dental appointments"),
    "anniversary": ("Anniversary", "Lucía and Marco's wedding anniversary is on June 12.", "Gifts and dinner plans"),
    "babysitter": ("Babysitter", "Their usual babysitter is Priya, who needs a day's notice.", "Date nights"),
    "pizza": ("Pizza night", "Friday is pizza night at home.", "Planning Friday dinners"),
    "gym": ("Marco's gym", "Marco goes to the climbing gym on Monday and Thursday evenings.", "Evening plans"),
    "church": ("Sunday mornings", "The family goes to mass at St. Anne's at 10 on Sundays.", "Sunday plans"),
    "insurance": ("Health insurance", "The family's health insurance is through Kaiser.", "Doctor visits and bills"),
}

QUERIES: list[tuple[str, str]] = [
    # (message, key of the memory that answers it)
    ("Can you find a dentist appointment for Maya next week?", "ortho"),
    ("Maya's braces feel loose, who should we call?", "ortho"),
    ("Leo has a fever, which doctor does he see?", "pediatrician"),
    ("the dog is limping, book the veterinarian", "vet"),
    ("what's the name of maya's soccer coach?", "coach"),
    ("where do we pick up medicine refills", "pharmacy"),
    ("can Leo have a peanut butter sandwich?", "allergy"),
    ("suggest a restaurant for Lucía's birthday dinner", "vegetarian"),
    ("when are Leo's music lessons", "piano"),
    ("the car needs a check-up, what do we drive?", "car"),
    ("when is grandma coming to visit", "grandma"),
    ("what night do the recycling bins go out", "bins"),
    ("what time should the kids go to sleep tonight?", "bedtime"),
    ("can the kids have a coke with lunch today", "soda"),
    ("where did Maya go to camp last spring?", "camp"),
    ("what's the guest wifi password name", "wifi"),
    ("which grade is Maya in", "school"),
    ("when is Leo's swim class", "swim"),
    ("book Marco a teeth cleaning", "dentist_marco"),
    ("what should I get Lucía for our anniversary", "anniversary"),
    ("find someone to watch the kids on Saturday night", "babysitter"),
    ("what are we having for dinner friday", "pizza"),
    ("is Marco free Thursday evening?", "gym"),
    ("what are our plans Sunday morning", "church"),
    ("which insurer covers our doctor visits?", "insurance"),
    # misspellings
    ("who is the orthodontst for Maya", "ortho"),
    ("when is pianno with Ms Okonkwo", "piano"),
    ("Camp Kinikinnick again this year?", "camp"),
    ("Walgreen on 5th", "pharmacy"),
    ("Biscut needs shots", "vet"),
]
