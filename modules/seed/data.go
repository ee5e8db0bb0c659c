package seed

// The demo catalog and the word lists the demo people are made from. All
// deterministic: the same run always produces the same marketplace.

type categoryData struct {
	ID, Name, Description, Color, Icon string
	Trade                              string
	Services                           [][2]string // slug, name
}

var categoryList = []categoryData{
	{"plomeria", "Plomería", "Fugas, instalaciones y destapes.", "#1E6091", "droplet", "plomería",
		[][2]string{{"reparacion-de-fugas", "Reparación de fugas"}, {"instalacion-de-griferia", "Instalación de grifería"}, {"destape-de-canerias", "Destape de cañerías"}, {"calentadores", "Instalación de calentadores"}}},
	{"electricidad", "Electricidad", "Instalaciones eléctricas seguras.", "#B5651D", "zap", "electricidad",
		[][2]string{{"instalacion-electrica", "Instalación eléctrica"}, {"cambio-de-tomas", "Cambio de tomas e interruptores"}, {"iluminacion", "Iluminación"}}},
	{"aseo", "Aseo", "Limpieza de hogares y oficinas.", "#2D6A4F", "sparkles", "aseo",
		[][2]string{{"aseo-general", "Aseo general"}, {"limpieza-profunda", "Limpieza profunda"}, {"lavado-de-muebles", "Lavado de muebles"}}},
	{"carpinteria", "Carpintería", "Muebles a medida y reparaciones en madera.", "#7F4F24", "hammer", "carpintería",
		[][2]string{{"muebles-a-medida", "Muebles a medida"}, {"reparacion-de-puertas", "Reparación de puertas"}, {"closets", "Closets y cocinas"}}},
	{"pintura", "Pintura", "Pintura de interiores y fachadas.", "#6A4C93", "brush", "pintura",
		[][2]string{{"pintura-de-interiores", "Pintura de interiores"}, {"pintura-de-fachadas", "Pintura de fachadas"}, {"estuco", "Estuco y resanes"}}},
	{"jardineria", "Jardinería", "Jardines, poda y zonas verdes.", "#386641", "leaf", "jardinería",
		[][2]string{{"poda", "Poda de árboles y setos"}, {"mantenimiento-de-jardines", "Mantenimiento de jardines"}}},
	{"cerrajeria", "Cerrajería", "Aperturas, chapas y copias de llaves.", "#495057", "key", "cerrajería",
		[][2]string{{"apertura-de-puertas", "Apertura de puertas"}, {"cambio-de-guardas", "Cambio de guardas"}}},
	{"mudanzas", "Mudanzas", "Trasteos y acarreos.", "#9D0208", "truck", "mudanzas",
		[][2]string{{"trasteos", "Trasteos"}, {"acarreos", "Acarreos pequeños"}}},
}

var firstNames = []string{
	"Carlos", "María", "José", "Luz", "Andrés", "Ana", "Jorge", "Paola", "Luis", "Diana",
	"Juan", "Sandra", "Pedro", "Claudia", "Miguel", "Natalia", "Óscar", "Camila", "Fabián", "Yolanda",
	"Hernán", "Ángela", "Wilson", "Patricia", "Édgar", "Marcela", "Iván", "Lucía", "Nelson", "Sofía",
}

var lastNames = []string{
	"Gómez", "Rodríguez", "Martínez", "López", "García", "Hernández", "Pérez", "Sánchez", "Ramírez", "Torres",
	"Díaz", "Moreno", "Vargas", "Castro", "Rojas", "Muñoz", "Ortiz", "Jiménez", "Suárez", "Peña",
}

type cityData struct {
	Name          string
	Neighborhoods []string
}

var cityList = []cityData{
	{"Bogotá", []string{"Chapinero", "Usaquén", "Kennedy", "Suba", "Teusaquillo", "Fontibón"}},
	{"Medellín", []string{"El Poblado", "Laureles", "Belén", "Envigado", "Robledo"}},
	{"Cali", []string{"San Fernando", "Granada", "Ciudad Jardín", "El Peñón"}},
	{"Barranquilla", []string{"El Prado", "Riomar", "Alto Prado"}},
	{"Bucaramanga", []string{"Cabecera", "San Alonso", "Provenza"}},
	{"Cartagena", []string{"Bocagrande", "Manga", "Crespo"}},
	{"Pereira", []string{"Pinares", "Álamos", "Cuba"}},
}

// jobTitles are demo job titles with the category of work they need.
var jobTitles = []struct{ Title, Category string }{
	{"Arreglar fuga en el baño", "plomeria"}, {"Instalar lámparas en la sala", "electricidad"},
	{"Aseo general del apartamento", "aseo"}, {"Reparar la puerta del cuarto", "carpinteria"},
	{"Pintar dos habitaciones", "pintura"}, {"Podar el jardín", "jardineria"},
	{"Cambiar la chapa de la entrada", "cerrajeria"}, {"Trasteo de un apartamento pequeño", "mudanzas"},
	{"Revisar un corto circuito", "electricidad"}, {"Destapar el lavaplatos", "plomeria"},
	{"Hacer un closet a medida", "carpinteria"}, {"Resanar humedad en la pared", "pintura"},
	{"Instalar la grifería de la cocina", "plomeria"}, {"Arreglar el cajón del escritorio", "carpinteria"},
}

var reviewComments = []string{
	"Muy puntual y ordenado. Lo recomiendo.",
	"Excelente trabajo, dejó todo limpio.",
	"Buen servicio, aunque llegó un poco tarde.",
	"Resolvió el problema rápido y con buen precio.",
	"Muy amable y profesional.",
	"",
}

var legalDocs = []struct {
	Slug, Title string
	Sections    [][2]string
}{
	{"terminos", "Términos y condiciones", [][2]string{
		{"Objeto", "Camellos es una plataforma que pone en contacto a clientes que necesitan un trabajo con camellos (prestadores independientes) que lo realizan."},
		{"Cuentas", "Debes dar datos veraces al registrarte y cuidar tu contraseña. Puedes cerrar tu sesión en cualquier momento."},
		{"Trabajos y citas", "El cliente solicita el trabajo y agenda una cita en los horarios libres del camello. Cualquiera de las partes puede cancelar un trabajo que no esté completado."},
		{"Reseñas", "Solo el cliente de un trabajo completado puede calificarlo, una vez. Las reseñas deben ser respetuosas."},
	}},
	{"privacidad", "Política de privacidad", [][2]string{
		{"Datos que tratamos", "Nombre, correo, teléfono, ciudad y, en el caso de los camellos, documento, tarjeta profesional y foto."},
		{"Para qué", "Para prestar el servicio: mostrar perfiles públicos, gestionar trabajos, citas y notificaciones."},
		{"Qué es público", "Del camello se publican nombre, foto, oficios, ciudad, barrio, descripción, servicios y reseñas. Documento, teléfono y notas nunca son públicos."},
		{"Tus derechos", "Puedes conocer, actualizar y pedir la supresión de tus datos escribiendo a soporte@camellos.co."},
	}},
}
